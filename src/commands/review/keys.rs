//! One key at a time from the terminal, for the review prompt.
//!
//! On Unix the terminal is put in raw mode (no line editing, no echo, and
//! no signal keys: Ctrl-C arrives as a key, so the review can restore the
//! terminal and say that nothing was written) for as long as a [`Keys`]
//! lives, and restored when it is dropped or paused for the pager. Where
//! raw mode is not available (Windows, or a terminal that refuses it),
//! a key is the first character of a line: `a` then Enter.

use std::io::{self, BufRead, Read};

/// A key the review prompt understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Key {
    Accept,
    Reject,
    Skip,
    Diff,
    Quit,
    /// Ctrl-C: stop, writing nothing.
    Abort,
    /// Anything else.
    Other,
}

impl Key {
    /// The key a byte typed stands for. Enter and Esc, which `cargo insta
    /// review` takes for accept and reject, mean nothing here, nor do
    /// capitals: a stray Enter, or the `A` that ends an up-arrow's escape
    /// sequence read apart from it, must not accept a change of a table's
    /// data.
    pub(super) fn of(byte: u8) -> Key {
        match byte {
            b'a' => Key::Accept,
            b'r' => Key::Reject,
            b's' | b' ' => Key::Skip,
            b'd' => Key::Diff,
            b'q' | 0x04 => Key::Quit,
            0x03 => Key::Abort,
            _ => Key::Other,
        }
    }
}

/// Keys read from standard input.
pub(super) struct Keys {
    raw: Option<raw::Raw>,
    /// Keys typed ahead, read with an earlier one.
    ahead: std::collections::VecDeque<u8>,
}

impl Keys {
    /// Start reading keys: in raw mode where the terminal allows it.
    pub(super) fn new() -> Keys {
        Keys {
            raw: raw::Raw::enter().ok(),
            ahead: std::collections::VecDeque::new(),
        }
    }

    /// Whether one key press is read without Enter.
    pub(super) fn single(&self) -> bool {
        self.raw.is_some()
    }

    /// The next key; `Quit` at the end of input.
    pub(super) fn next(&mut self) -> io::Result<Key> {
        let stdin = io::stdin();
        let mut stdin = stdin.lock();
        if self.raw.is_some() {
            if let Some(byte) = self.ahead.pop_front() {
                return Ok(Key::of(byte));
            }
            let mut chunk = [0u8; 16];
            return loop {
                match stdin.read(&mut chunk) {
                    Ok(0) => break Ok(Key::Quit),
                    // An escape sequence (an arrow key: ESC [ A) arrives
                    // whole and is no key here: its `A` must not accept.
                    Ok(_) if chunk[0] == 0x1b => break Ok(Key::Other),
                    Ok(n) => {
                        self.ahead.extend(&chunk[1..n]);
                        break Ok(Key::of(chunk[0]));
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => break Err(e),
                }
            };
        }
        let mut line = String::new();
        if stdin.read_line(&mut line)? == 0 {
            return Ok(Key::Quit);
        }
        Ok(line.trim().bytes().next().map_or(Key::Other, Key::of))
    }

    /// Give the terminal back as it was (for a pager) until [`Keys::resume`].
    pub(super) fn pause(&mut self) {
        self.raw = None;
        self.ahead.clear();
    }

    /// Raw mode again after [`Keys::pause`], where it was.
    pub(super) fn resume(&mut self, single: bool) {
        if single {
            self.raw = raw::Raw::enter().ok();
        }
    }
}

#[cfg(unix)]
mod raw {
    use std::io;

    /// The terminal in raw mode; its settings before are restored on drop.
    pub(super) struct Raw {
        saved: libc::termios,
    }

    impl Raw {
        pub(super) fn enter() -> io::Result<Raw> {
            let fd = libc::STDIN_FILENO;
            let mut t = std::mem::MaybeUninit::<libc::termios>::uninit();
            // SAFETY: tcgetattr writes a whole termios through a valid
            // pointer, or fails and writes nothing we read.
            if unsafe { libc::tcgetattr(fd, t.as_mut_ptr()) } != 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: tcgetattr succeeded, so the struct is initialised.
            let saved = unsafe { t.assume_init() };
            let mut raw = saved;
            raw.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG);
            raw.c_cc[libc::VMIN] = 1;
            raw.c_cc[libc::VTIME] = 0;
            // SAFETY: a valid termios for the same descriptor.
            if unsafe { libc::tcsetattr(fd, libc::TCSANOW, &raw) } != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(Raw { saved })
        }
    }

    impl Drop for Raw {
        fn drop(&mut self) {
            // SAFETY: the settings tcgetattr gave for this descriptor.
            unsafe {
                libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &self.saved);
            }
        }
    }
}

#[cfg(not(unix))]
mod raw {
    use std::io;

    /// Raw mode is not attempted here: keys are read a line at a time.
    pub(super) struct Raw;

    impl Raw {
        pub(super) fn enter() -> io::Result<Raw> {
            Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "single keys are read on Unix terminals",
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_letters_insta_review_uses_and_enter_accepts_nothing() {
        assert_eq!(Key::of(b'a'), Key::Accept);
        assert_eq!(Key::of(b'r'), Key::Reject);
        assert_eq!(Key::of(b'A'), Key::Other);
        assert_eq!(Key::of(b's'), Key::Skip);
        assert_eq!(Key::of(b' '), Key::Skip);
        assert_eq!(Key::of(b'\r'), Key::Other);
        assert_eq!(Key::of(0x1b), Key::Other);
        assert_eq!(Key::of(b'd'), Key::Diff);
        assert_eq!(Key::of(b'q'), Key::Quit);
        assert_eq!(Key::of(0x03), Key::Abort);
        assert_eq!(Key::of(b'x'), Key::Other);
    }
}
