//! `golden`: the same command line as `cargo golden`, for teams that
//! install the tool with pip (the wheel puts both binaries on `PATH`) and
//! have no cargo to run it through.

fn main() {
    std::process::exit(cargo_golden::_support::golden_main());
}
