//! The dispute packet: one self-contained HTML page for one hand (or one table's round:
//! [`render_round`]), for an operator or a regulator who has never seen pitboss, when a player
//! says "I was paid wrong".
//!
//! The page holds, in order:
//!
//! 1. **The hand**: its id, table, player, when it opened and ended (UTC), its status, and the
//!    configuration it was played under (name, version, id, currency, rules version).
//! 2. **The cards** (`#cards`), drawn as pictures: each seat's cards with the entry at which each
//!    was turned face up, face-down cards as a patterned back; for Fortune Pai Gow the player's and
//!    dealer's settings (high five, low two) with the house-way rule that set them; for Nutz the
//!    dice of every shake, rolled and held dice marked.
//! 3. **The timeline** (`#timeline`): every recorded entry in words, who caused it, and its checks
//!    (in the signed checkpoint, signature, re-derived by the replay).
//! 4. **The paytables** (`#paytable`) of the configuration, the rows this hand applied
//!    highlighted, the caps configured; **the settlement** (`#settlement`) line by line with every
//!    cap that bound flagged, the per-game cap and the totals; **the void** (`#void`) or **the
//!    completion** (`#completion`) if there was one, with why the rule allowed it.
//! 5. **The verdict** (`#verdict`): consistent, or the failures listed; the signed checkpoint; and
//!    the commands that check the hand's offline bundle without pitboss's server.
//!
//! Guarantees:
//!
//! - **Self-contained**: no external fetch of any kind. There is no `http:` or `https:` URL in any
//!   `src` or `href` (nor anywhere), no external font or `@import`, no `url(…)`, and no `<script>`
//!   at all. Cards and dice are inline SVG drawn by this crate; the stylesheet is inline. The head
//!   carries a Content-Security-Policy ([`CONTENT_SECURITY_POLICY`]) that allows the inline style
//!   and nothing else, so that a browser would fetch and run nothing even past a flaw in the
//!   escaping.
//! - **Escaped**: the page is built from `maud` templates, which escape every interpolated value,
//!   in content and attributes alike; every text that comes from the log (references, actors,
//!   reasons, notes, report lines) is among them. Nothing from the log is passed as pre-escaped
//!   markup.
//! - **Deterministic and pure**: no I/O, no clock, no randomness. The same [`Packet`] renders to the
//!   same bytes; the page carries no generation time.
//! - **Total**: any packet renders. Empty lists, odd card counts or unknown rule names give words,
//!   never a panic.
//! - **Findable figures**: every amount is `Money::display` of its minor units (no thousands
//!   separators) inside `<data data-field="…" value="minor units">`, e.g. `total_paid`,
//!   `lines[0].payout`, `void.paid_now`, so a reader's tool can find each figure exactly.
//!
//! The server builds the [`Packet`] (from the log, the replay and the bundle verification) and
//! calls [`render`]; this crate judges nothing itself.

mod certificate;
mod escape;
mod model;
mod page;
mod paytables;
mod report;
mod round_model;
mod round_page;
mod style;
mod svg;
mod time;
mod words;

pub use certificate::{
    render_certificate, BatteryView, CertificatePage, FigureView, SheetRow, SheetView,
};
pub use model::{CheckpointFacts, Mismatch, Packet, PacketEvent, Verdict};
pub use page::{render, CONTENT_SECURITY_POLICY};
pub use report::{render_events, EventsReport, ReportEvent};
pub use round_model::{RoundPacket, RoundPacketEvent, RoundPacketPlace, RoundVerdict};
pub use round_page::render_round;
pub use style::CHROMIUM_FLAGS;
/// A recorded time as people read it (`YYYY-MM-DD HH:MM:SS.mmm UTC`), for every page and listing
/// that shows one: the packet's, and the CLI's.
pub use time::{ms_of_date, utc};
pub use words::action_words;
