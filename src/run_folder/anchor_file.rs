//! Anchor files in Ordo's formats (Ordo 1.2.6, `relprior.c` `priors_load` and `init_manchors`),
//! read for `arena rate --anchors FILE` and `--loose-anchors FILE`. Not a file of a run folder:
//! the user's, only read.
//!
//! # Format
//! CSV without a header, names quoted where they hold commas or quotes, blank lines skipped:
//! - fixed anchors (Ordo's `-m`): `"Name",Rating` per line;
//! - loose anchors (Ordo's `-y`): `"Name",Rating,Uncertainty` per line; as in Ordo, further
//!   columns are more uncertainties, combined with the first in quadrature (`√(Σ σ_k²)`).
//!
//! Errors name the file and the line. Whether each name is a player is checked later, against
//! the games (`RateOptions::config`).

use std::path::Path;

use anyhow::{bail, Context, Result};

/// One row of an anchor file.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedAnchor {
    pub name: String,
    pub elo: f64,
    /// The uncertainty (loose anchors only).
    pub sd: Option<f64>,
}

/// Parses an anchor file's text; `loose` for the three-column form. `file` names it in errors.
pub fn parse_anchors(text: &str, file: &str, loose: bool) -> Result<Vec<NamedAnchor>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let shape = if loose {
        "\"Name\",Rating,Uncertainty"
    } else {
        "\"Name\",Rating"
    };
    let mut out = Vec::new();
    for record in reader.records() {
        let record = record.with_context(|| format!("{file}: not CSV"))?;
        let line = record.position().map_or(0, |p| p.line());
        let fields: Vec<&str> = record.iter().collect();
        if fields.iter().all(|f| f.is_empty()) {
            continue;
        }
        let number = |k: usize, what: &str| -> Result<f64> {
            match fields[k].parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => bail!(
                    "{file}:{line}: {what} `{}` is not a number (rows are {shape})",
                    fields[k]
                ),
            }
        };
        let ok_len = if loose {
            fields.len() >= 3
        } else {
            fields.len() == 2
        };
        if !ok_len || fields[0].is_empty() {
            bail!("{file}:{line}: `{}` is not a row {shape}", fields.join(","));
        }
        let elo = number(1, "the rating")?;
        let sd = if loose {
            let mut sum = 0.0;
            for k in 2..fields.len() {
                let s = number(k, "the uncertainty")?;
                sum += s * s;
            }
            let sd = sum.sqrt();
            if sd.is_nan() || sd <= 0.0 {
                bail!(
                    "{file}:{line}: the uncertainty of {} must be above 0",
                    fields[0]
                );
            }
            Some(sd)
        } else {
            None
        };
        if out.iter().any(|a: &NamedAnchor| a.name == fields[0]) {
            bail!("{file}:{line}: {} is anchored twice", fields[0]);
        }
        out.push(NamedAnchor {
            name: fields[0].to_string(),
            elo,
            sd,
        });
    }
    Ok(out)
}

/// Reads an anchor file (see the module docs).
pub fn read_anchors(path: &Path, loose: bool) -> Result<Vec<NamedAnchor>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the anchor file {}", path.display()))?;
    parse_anchors(&text, &path.display().to_string(), loose)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordo_rows() {
        let fixed = parse_anchors("\"a, b\",1644\n\n\"c\", 1552.5\n", "m.csv", false).unwrap();
        assert_eq!(fixed.len(), 2);
        assert_eq!((fixed[0].name.as_str(), fixed[0].elo), ("a, b", 1644.0));
        assert_eq!(fixed[1].elo, 1552.5);
        let loose = parse_anchors("\"a\",1644,60\n\"b\",1500,30,40\n", "y.csv", true).unwrap();
        assert_eq!(loose[0].sd, Some(60.0));
        assert_eq!(loose[1].sd, Some(50.0));
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = |text: &str, loose| parse_anchors(text, "m.csv", loose).unwrap_err().to_string();
        assert_eq!(
            e("\"a\",1644\n\"b\",high\n", false),
            "m.csv:2: the rating `high` is not a number (rows are \"Name\",Rating)"
        );
        assert_eq!(
            e("\"a\",1644\n\"b\"\n", false),
            "m.csv:2: `b` is not a row \"Name\",Rating"
        );
        assert_eq!(
            e("\"a\",1644,0\n", true),
            "m.csv:1: the uncertainty of a must be above 0"
        );
        assert_eq!(e("a,1\na,2\n", false), "m.csv:2: a is anchored twice");
    }
}
