//! Outputs for people and programs: the rating files and terminal tables of a results folder,
//! and (later) plots and the HTML report. Reads what `tournament/` wrote; the maths is
//! [`crate::rating`].

pub mod rate;
