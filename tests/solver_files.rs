//! The solver's files under damage (issue 48, points 4, 10, 11): a database with a zeroed or
//! flipped table, a value cache edited by hand, a database truncated under a solve, a FIFO or
//! `/dev/zero` in the value cache's place, and a full disk. No wrong value is ever printed as
//! proven, and every failure names its file. Kalah(6,3) (true value +2) with a 12-seed database
//! in a temporary `MANCALA_SOLVER_DB`.

mod util;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use util::*;

const RULES: &str = "kalah:pits=6,seeds=3";
const DB: &str = "kalah-n6-ec0-sw1-eonm0-k12.db";
const VALUES: &str = "kalah-n6-ec0-sw1-eonm0-values.bin";

/// `arena solve` of Kalah(6,3) with the 12-seed database, the cache in `cache`, and `extra`.
fn solve(cache: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["solve", "--rules", RULES, "--db-seeds", "12"];
    args.extend_from_slice(extra);
    arena_env(&args, &[("MANCALA_SOLVER_DB", cache)])
}

/// The printed value line's value (`value     +2  (...)`).
fn value_of(out: &Output) -> Option<i32> {
    text(&out.stdout)
        .lines()
        .find(|l| l.starts_with("value "))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
}

fn both(out: &Output) -> String {
    format!("{}\n{}", text(&out.stdout), text(&out.stderr))
}

/// A cache folder holding the good 12-seed database (and a value cache).
fn built(name: &str) -> Dir {
    let dir = Dir::new(name);
    let out = solve(dir.path(), &[]);
    assert!(out.status.success(), "{}", both(&out));
    assert_eq!(value_of(&out), Some(2), "{}", both(&out));
    dir
}

/// The length of the database file's header (its first line).
fn header_len(bytes: &[u8]) -> usize {
    bytes.iter().position(|&b| b == b'\n').unwrap() + 1
}

/// No file of the folder is empty or a temporary.
fn no_litter(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(
            !name.contains(".tmp") && !name.ends_with(".partial"),
            "left behind: {name}"
        );
        assert!(e.metadata().unwrap().len() > 0, "empty file left: {name}");
    }
}

/// FNV-1a, the value cache's record check (a hand edit that recomputes it).
fn fnv(bytes: &[u8]) -> [u8; 4] {
    bytes
        .iter()
        .fold(0x811c_9dc5u32, |h, &b| {
            (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
        })
        .to_le_bytes()
}

/// Every record of the value cache set to `value`, its check recomputed.
fn edit_values(path: &Path, value: i8) {
    let mut bytes = std::fs::read(path).unwrap();
    let start = header_len(&bytes);
    assert!((bytes.len() - start) % 22 == 0 && bytes.len() > start);
    for r in bytes[start..].chunks_exact_mut(22) {
        r[16] = value as u8;
        let c = fnv(&r[..18]);
        r[18..].copy_from_slice(&c);
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_value_cache_edited_to_an_impossible_value_is_not_printed() {
    let dir = built("values-edited");
    let values = dir.join(VALUES);
    edit_values(&values, 99);
    let out = solve(dir.path(), &[]);
    assert!(out.status.success(), "{}", both(&out));
    assert_eq!(value_of(&out), Some(2), "{}", both(&out));
    assert!(
        both(&out).contains("impossible"),
        "the refused records are counted: {}",
        both(&out)
    );
    // A plausible edit cannot be told from a proof: the value says where it came from.
    edit_values(&values, 4);
    let out = solve(dir.path(), &[]);
    assert_eq!(value_of(&out), Some(4));
    let said = text(&out.stdout);
    assert!(
        said.contains("value     +4  (from the value cache") && said.contains("--no-value-cache"),
        "{said}"
    );
    let out = solve(dir.path(), &["--no-value-cache"]);
    assert_eq!(value_of(&out), Some(2), "{}", both(&out));
}

/// A damaged table (zeroed, or every byte XOR 0x02) fails its checksum: the file is named,
/// the table rebuilt, the right value printed; and restoring the old file afterwards serves no
/// wrong value from the value cache.
#[test]
fn a_damaged_database_is_named_and_rebuilt() {
    for (name, damage) in [
        ("zeroed", (|b: &mut u8| *b = 0) as fn(&mut u8)),
        ("xor", |b: &mut u8| *b ^= 0x02),
    ] {
        let dir = built(&format!("db-{name}"));
        let db = dir.join(DB);
        let good = std::fs::read(&db).unwrap();
        let mut bad = good.clone();
        let start = header_len(&bad);
        bad[start..].iter_mut().for_each(damage);
        std::fs::write(&db, &bad).unwrap();
        std::fs::remove_file(dir.join(VALUES)).unwrap();
        let out = solve(dir.path(), &[]);
        assert!(out.status.success(), "{name}: {}", both(&out));
        assert_eq!(value_of(&out), Some(2), "{name}: {}", both(&out));
        let err = text(&out.stderr);
        assert!(
            err.contains(&db.display().to_string()) && err.contains("checksum"),
            "{name}: {err}"
        );
        assert_eq!(std::fs::read(&db).unwrap(), good, "{name}: rebuilt");
        // Back to the damaged file and a fresh solve: refused again, right value; restored:
        // the value cache holds only the right value.
        std::fs::write(&db, &bad).unwrap();
        let out = solve(dir.path(), &["--no-value-cache"]);
        assert_eq!(value_of(&out), Some(2), "{name}: {}", both(&out));
        std::fs::write(&db, &good).unwrap();
        let out = solve(dir.path(), &[]);
        assert_eq!(value_of(&out), Some(2), "{name}: {}", both(&out));
        no_litter(dir.path());
    }
}

/// A database of the format before checksums (no header naming its size and checksum) is
/// refused with a sentence and rebuilt.
#[test]
fn an_old_database_without_checksum_is_rebuilt() {
    let dir = built("db-old");
    let db = dir.join(DB);
    let good = std::fs::read(&db).unwrap();
    let mut old = b"mancala-arena solver db v1 kalah-n6-ec0-sw1-eonm0 k12\n".to_vec();
    old.extend_from_slice(&good[header_len(&good)..]);
    std::fs::write(&db, &old).unwrap();
    let out = solve(dir.path(), &["--no-value-cache"]);
    assert_eq!(value_of(&out), Some(2), "{}", both(&out));
    let err = text(&out.stderr);
    assert!(
        err.contains(&db.display().to_string()) && err.contains("older format"),
        "{err}"
    );
    assert_eq!(std::fs::read(&db).unwrap(), good);
}

/// A database truncated while a solve reads it ends the solve with a message naming the file
/// (not a bare SIGBUS, exit 135).
#[test]
fn a_database_truncated_under_a_solve_is_named() {
    use std::io::BufRead;
    let dir = built("db-truncated");
    let db = dir.join(DB);
    let good = std::fs::read(&db).unwrap();
    // Kalah(6,4) (48 seeds: the table stays mapped) takes long enough to be caught reading it.
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args([
            "solve",
            "--rules",
            "kalah:pits=6,seeds=4",
            "--db-seeds",
            "12",
            "--no-value-cache",
            "--threads",
            "1",
        ])
        .env("MANCALA_SOLVER_DB", dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = String::new();
    for line in &mut lines {
        let line = line.unwrap();
        seen += &line;
        if line.starts_with("database") {
            break;
        }
    }
    assert!(seen.contains("mapped"), "{seen}");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&db)
        .unwrap()
        .set_len(header_len(&good) as u64)
        .unwrap();
    let waited = std::thread::spawn(move || child.wait_with_output().unwrap());
    let out = waited.join().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), None, "killed by a signal: {out:?}");
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains(&db.display().to_string()) && err.contains("shrank"),
        "{err}"
    );
}

/// A FIFO, a symlink to /dev/zero or a folder in the value cache's place is refused with its
/// path (the solve goes on without the cache and returns promptly).
#[test]
fn a_value_cache_that_is_not_a_regular_file_is_refused() {
    let dir = built("values-special");
    let values = dir.join(VALUES);
    for kind in ["fifo", "zero", "dir"] {
        let _ = std::fs::remove_file(&values);
        let _ = std::fs::remove_dir(&values);
        match kind {
            "fifo" => {
                let st = Command::new("mkfifo").arg(&values).status().unwrap();
                assert!(st.success());
            }
            "zero" => std::os::unix::fs::symlink("/dev/zero", &values).unwrap(),
            _ => std::fs::create_dir(&values).unwrap(),
        }
        let out = solve(dir.path(), &[]);
        assert_eq!(value_of(&out), Some(2), "{kind}: {}", both(&out));
        let err = text(&out.stderr);
        assert!(
            err.contains(&values.display().to_string()) && err.contains("not a regular file"),
            "{kind}: {err}"
        );
    }
}

/// `sh -c 'ulimit -f BLOCKS; exec arena solve ...'` with SIGXFSZ ignored: the write fails.
fn solve_limited(cache: &Path, blocks: u64, extra: &[&str]) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f {blocks}; exec \"$0\" solve --rules {RULES} --db-seeds 12 \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_arena"))
        .args(extra)
        .env("MANCALA_SOLVER_DB", cache);
    bin_dir();
    cmd.output().unwrap()
}

/// A full disk: the value cache cannot be written (file size limit 0), the database cannot be
/// written (100 blocks): the error names the file, the exit is non-zero, nothing is left that
/// blocks or misleads the next run, and the next run (with room) writes both.
#[test]
fn a_full_disk_is_reported_and_leaves_no_file() {
    let dir = built("full-disk");
    let values = dir.join(VALUES);
    std::fs::remove_file(&values).unwrap();
    let out = solve_limited(dir.path(), 0, &[]);
    assert_eq!(value_of(&out), Some(2), "{}", both(&out));
    assert!(!out.status.success(), "{}", both(&out));
    let err = text(&out.stderr);
    assert!(err.contains(&values.display().to_string()), "{err}");
    assert!(
        err.contains("File too large") || err.contains("disk full"),
        "{err}"
    );
    assert!(!values.exists(), "no values file left");
    no_litter(dir.path());
    // A database that cannot be written is built in memory, said so, and not claimed kept.
    let db = dir.join(DB);
    std::fs::remove_file(&db).unwrap();
    let out = solve_limited(dir.path(), 100, &["--no-value-cache"]);
    assert_eq!(value_of(&out), Some(2), "{}", both(&out));
    assert!(!out.status.success(), "{}", both(&out));
    let err = text(&out.stderr);
    assert!(
        err.contains(&db.display().to_string()) && err.contains("not kept"),
        "{err}"
    );
    assert!(!err.contains("for next time"), "{err}");
    assert!(!db.exists());
    no_litter(dir.path());
    // With room again, both are written.
    let out = solve(dir.path(), &[]);
    assert!(out.status.success(), "{}", both(&out));
    assert!(db.exists() && values.exists());
}
