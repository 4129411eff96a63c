//! The repository's own golden projects, run through the libtest harness.

fn main() {
    cargo_golden::harness::main()
}
