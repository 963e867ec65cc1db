//! `inquiry tickets list|show|close`: the desk's hand-off queue from the terminal.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::desk::{TicketStatus, TicketStore, TicketUpdate};

/// Arguments of `inquiry tickets`.
#[derive(Debug, clap::Args)]
pub struct TicketsArgs {
    /// Ticket database (the one `inquiry serve` and `serve-mcp --tickets` write).
    #[arg(long, global = true, default_value = crate::desk::DEFAULT_DB, value_name = "FILE", env = "INQUIRY_DESK_DB")]
    pub db: PathBuf,
    /// What to do.
    #[command(subcommand)]
    pub action: TicketsAction,
}

/// The `tickets` actions.
#[derive(Debug, clap::Subcommand)]
pub enum TicketsAction {
    /// List tickets, oldest first.
    List {
        /// Only tickets with this status: open, in_progress or done.
        #[arg(long, value_parser = |s: &str| s.parse::<TicketStatus>())]
        status: Option<TicketStatus>,
        /// Print JSON on stdout instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Show one ticket with its status history.
    Show {
        /// Ticket id, e.g. TKT-0001.
        id: String,
        /// Print JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Write the case trace of a ticket whose reply was marked wrong (the run
    /// the desk kept), for `inquiry cases add --from-trace`.
    Trace {
        /// Ticket id, e.g. TKT-0001.
        id: String,
        /// Write to FILE instead of stdout (never overwritten).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Mark a ticket done, with an optional note.
    Close {
        /// Ticket id, e.g. TKT-0001.
        id: String,
        /// What was done (at most 2,000 characters).
        #[arg(long)]
        note: Option<String>,
    },
}

/// Runs one action on the database.
///
/// # Errors
/// A database that cannot be opened, or (show, close) an unknown ticket id.
pub fn run(args: TicketsArgs) -> anyhow::Result<ExitCode> {
    // Reading never writes: list and show open the file read-only (another
    // application's file, or a read-only copy, is left exactly as it was).
    let store = match args.action {
        TicketsAction::Close { .. } => {
            if !args.db.is_file() {
                TicketStore::open_read_only(&args.db)?; // the "no database here yet" error
            }
            TicketStore::open(&args.db)?
        }
        _ => TicketStore::open_read_only(&args.db)?,
    };
    let mut out = std::io::stdout().lock();
    let esc = |s: &str, n| crate::text_file::escape_for_terminal(s, n);
    match args.action {
        TicketsAction::List { status, json } => {
            let tickets = store.list(status)?;
            if json {
                serde_json::to_writer_pretty(&mut out, &tickets)?;
                writeln!(out)?;
            } else if tickets.is_empty() {
                eprintln!(
                    "no ticket{} in {}",
                    status.map(|s| format!(" with status {}", s.as_str())).unwrap_or_default(),
                    args.db.display()
                );
            } else {
                let mut table = comfy_table::Table::new();
                table.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
                table.set_header(["ticket", "status", "reason", "listing", "created", "summary"]);
                for t in &tickets {
                    table.add_row([
                        t.ticket.ticket_id.clone(),
                        t.status.as_str().to_owned(),
                        t.ticket.reason.to_string(),
                        t.ticket.listing_id.clone().unwrap_or_default(),
                        t.ticket.created_at.clone(),
                        esc(&t.ticket.summary, 80),
                    ]);
                }
                writeln!(out, "{table}")?;
                eprintln!("{} ticket(s) in {}", tickets.len(), args.db.display());
            }
        }
        TicketsAction::Trace { id, out: file } => {
            let marks = crate::desk::wrong_reply::wrong_replies(&store)?;
            let Some(mark) = marks.iter().find(|w| w.ticket_id == id) else {
                anyhow::bail!(
                    "ticket {} in {} is not marked \"reply was wrong\" (the desk's review column marks it)",
                    esc(&id, 40),
                    args.db.display()
                );
            };
            let Some(trace) = crate::desk::wrong_reply::trace(mark)? else {
                anyhow::bail!(
                    "ticket {} has no stored run (it did not come from the desk's conversation)",
                    esc(&id, 40)
                );
            };
            let text = serde_json::to_string_pretty(&trace)? + "\n";
            match file {
                Some(path) => {
                    let f = std::fs::OpenOptions::new()
                        .write(true)
                        .create_new(true)
                        .open(&path)
                        .map_err(|e| anyhow::anyhow!("{}: {e} (a trace is never overwritten)", path.display()))?;
                    std::io::Write::write_all(&mut &f, text.as_bytes())?;
                    eprintln!("tickets trace: {} written to {}", id, path.display());
                }
                None => out.write_all(text.as_bytes())?,
            }
        }
        TicketsAction::Show { id, json } => {
            let Some(detail) = store.get(&id)? else {
                anyhow::bail!("no ticket {} in {}; see `inquiry tickets list`", esc(&id, 40), args.db.display());
            };
            if json {
                serde_json::to_writer_pretty(&mut out, &detail)?;
                writeln!(out)?;
            } else {
                let t = &detail.ticket;
                writeln!(out, "{} · {} · {}", t.ticket.ticket_id, t.status.as_str(), t.ticket.reason)?;
                if let Some(l) = &t.ticket.listing_id {
                    writeln!(out, "listing: {l}")?;
                }
                if let Some(e) = &t.ticket.contact_email {
                    writeln!(out, "contact: {}", esc(e, 200))?;
                }
                writeln!(out, "summary: {}", esc(&t.ticket.summary, 600))?;
                writeln!(out, "history:")?;
                for e in &detail.history {
                    let note = e.note.as_deref().map(|n| format!(" · {}", esc(n, 300))).unwrap_or_default();
                    writeln!(out, "  {} {} ({}){note}", e.at, e.status.as_str(), e.source)?;
                }
            }
        }
        TicketsAction::Close { id, note } => {
            let update = TicketUpdate { status: Some(TicketStatus::Done), note };
            match store.update(&id, &update, "cli")? {
                Some(t) => eprintln!("{} is done", t.ticket.ticket_id),
                None => {
                    anyhow::bail!("no ticket {} in {}; see `inquiry tickets list`", esc(&id, 40), args.db.display())
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
