//! Outputs for people and programs: the rating files and terminal tables of a results folder
//! ([`rate`]), its figures ([`plots`]), and the two documents made from them, `report.html`
//! ([`html`]) and `summary.md` ([`markdown`]), written together by [`output::write_report`], which
//! also show the mistake meter's [`analysis`] when the folder has one.
//! Reads what `tournament/` wrote; the maths is [`crate::rating`].

pub mod analysis;
pub mod html;
pub mod markdown;
pub mod output;
pub mod plots;
pub mod rate;
