//! Compiles, with warnings: an unused struct, an unused fn, an unused variable.
use std::time::Duration;

struct ValidationError {
    field: String,
}

fn handle_timeout(after: Duration) -> String {
    format!("timed out after {after:?}")
}

fn main() {
    let retries = 3;
    let total: u32 = [1, 2, 3].iter().sum();
    println!("loaded {total} rows");
}
