//! Does not compile: a &str where a u32 is expected.
fn parse_rows(text: &str) -> u32 {
    let rows: u32 = text;
    rows
}

fn main() {
    println!("{}", parse_rows("42"));
}
