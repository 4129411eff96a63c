//! `cargo golden list` (and `cargo golden --list`): the cases in
//! declaration order with their kind and declaration line, as lines for
//! people or `--message-format json` messages.

use std::io::Write;

use crate::commands::{Loaded, MessageFormat};
use crate::conclusion;
use crate::runner::{
    self,
    select::{Filter, Partition},
};
use crate::wire::message::{Message, MessageLine};

/// Which cases a listing shows, and how.
pub(crate) struct Listing {
    /// The filters, `--exact` and `--skip`.
    pub(crate) filter: Filter,
    /// `--partition`: one shard's cases.
    pub(crate) partition: Option<Partition>,
    /// Lines or JSON messages.
    pub(crate) format: MessageFormat,
}

/// Print the cases of `loaded`'s harness that `listing` selects; a closed
/// stdout ends the listing early, with success.
pub(crate) fn command(loaded: &Loaded, listing: &Listing) -> i32 {
    let h = &loaded.harness;
    let file = h.display_file();
    let redactor = h.redactor();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for c in runner::included(h, listing.partition.as_ref()) {
        if !listing.filter.matches(&c.name) {
            continue;
        }
        let r = match listing.format {
            MessageFormat::Json => {
                let line = MessageLine::from(Message::Case {
                    index: c.index,
                    name: c.name.clone(),
                    kind: c.kind,
                    file: file.clone(),
                    line: c.line,
                    command: redactor.mask_str(&c.command).0.into_owned(),
                });
                serde_json::to_writer(&mut out, &line)
                    .map_err(std::io::Error::other)
                    .and_then(|()| writeln!(out))
            }
            MessageFormat::Human => writeln!(
                out,
                "{:<6}  {}  ({}:{})",
                c.kind.as_str(),
                c.name,
                file,
                c.line
            ),
        };
        if r.is_err() {
            break;
        }
    }
    let _ = out.flush();
    conclusion::SUCCESS
}
