//! `cargo-golden`: the binary is a thin shell over the library.

fn main() {
    std::process::exit(cargo_golden::_support::main());
}
