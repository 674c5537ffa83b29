//! Documents for people: the terminal tables and the rating run of a results folder ([`rate`],
//! [`tables`]), its figures ([`plots`]), and the two documents made from them, `report.html`
//! ([`html`]) and `summary.md` ([`markdown`]), written together by
//! [`documents::write_report`]. The game viewer's data is [`viewer`]'s (shared with
//! `arena serve`). The files of the folder are read and written through
//! [`crate::run_folder`]; the maths is [`crate::rating`]. Formatting only.
//!
//! The modules import one another in one direction only (tests/layers.rs checks it): [`text`] (escaping)
//! and [`input`] (what the documents are made of) import no renderer, the renderers import
//! them, and only [`documents`] calls the renderers.

pub mod calibration;
pub mod documents;
pub mod html;
pub mod input;
pub mod markdown;
pub mod plots;
pub mod rate;
pub mod tables;
pub mod text;
pub mod viewer;
