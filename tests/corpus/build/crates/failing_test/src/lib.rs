//! One test passes, one fails.
pub fn retry_delay_ms(attempt: u32) -> u64 {
    100 * u64::from(attempt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_retry_waits_100ms() {
        assert_eq!(retry_delay_ms(1), 100);
    }

    #[test]
    fn delay_doubles_each_attempt() {
        assert_eq!(retry_delay_ms(3), 400);
    }
}
