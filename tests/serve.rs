//! `arena serve` (issue 17), with real runs and real processes: the security tests (path
//! traversal, symbolic links out of the folder, hostile bot names and log lines, the
//! Content-Security-Policy, methods other than GET, foreign Host names, the warning off
//! loopback), and a real browser (Debian's headless Chromium through chromedriver, over the
//! WebDriver protocol) watching a tournament live and stepping through a game, checked against
//! `arena replay --json`.

mod util;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use util::*;

const HOSTILE: &str = "<script>alert(1)</script>";

/// A child process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `arena serve ROOT --bind BIND` started (its stderr kept in a pipe); returns the process and
/// the address it printed.
fn serve(root: &Path, bind: &str) -> (Killed, String) {
    bin_dir();
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["serve", &root.display().to_string(), "--bind", bind])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start arena serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("read the address");
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .and_then(|a| a.strip_suffix('/'))
        .unwrap_or_else(|| panic!("unexpected first line `{line}`"))
        .to_string();
    (Killed(child), addr)
}

fn get(addr: &str, target: &str) -> HttpResponse {
    http(addr, "GET", target, &[], "")
}

/// A finished tournament under `root/NAME` with a hostile name, a bot whose stderr is hostile,
/// and a plain random bot.
fn hostile_run(root: &Path, name: &str) -> std::path::PathBuf {
    let out = root.join(name);
    let out_s = out.display().to_string();
    let loud = format!(
        "cmd=echo '<script>alert(2)</script> & <b>log</b>' >&2; exec {}",
        bot("random")
    );
    arena_ok(&[
        "run",
        "--quiet",
        "--no-plots",
        "--out",
        &out_s,
        "--pairs",
        "2",
        "--movetime",
        "5000",
        "--bootstrap",
        "20",
        "--bot",
        "name=random",
        &format!("cmd={}", bot("random")),
        "--bot",
        &format!("name={HOSTILE}"),
        &format!("cmd={}", bot("greedy")),
        "--bot",
        "name=loud",
        &loud,
        "shell=true",
    ]);
    out
}

#[test]
fn serves_only_the_run_folders_and_escapes_everything() {
    let dir = Dir::new("serve-security");
    let root = dir.join("results");
    std::fs::create_dir_all(&root).unwrap();
    let run = hostile_run(&root, "t");
    // Outside the served folder: a secret, and a run folder reached by a symbolic link.
    let outside = dir.join("outside");
    std::fs::create_dir_all(outside.join("run")).unwrap();
    std::fs::write(outside.join("secret.txt"), "TOP-SECRET\n").unwrap();
    for f in ["run.json", "games.csv", "games.jsonl"] {
        std::fs::copy(run.join(f), outside.join("run").join(f)).unwrap();
    }
    std::os::unix::fs::symlink(outside.join("run"), root.join("linked")).unwrap();
    // A log inside the run folder that is a link to the secret.
    let log = run.join("logs/random.stderr.log");
    let _ = std::fs::remove_file(&log);
    std::os::unix::fs::symlink(outside.join("secret.txt"), &log).unwrap();

    let before = listing(&run);
    let (_server, addr) = serve(&root, "127.0.0.1:0");
    let secret_free = |r: &HttpResponse, what: &str| {
        assert!(
            !r.body.contains("TOP-SECRET") && !r.body.contains("root:x:0"),
            "{what} leaked a file: {}",
            r.body
        );
    };
    for target in [
        "/../../../etc/passwd",
        "/static/../../../etc/passwd",
        "/static/..%2f..%2f..%2fetc%2fpasswd",
        "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/static/%2e%2e/%2e%2e/outside/secret.txt",
        "//etc/passwd",
        "/run?id=..%2Foutside%2Frun",
        "/run?id=%2Fetc",
        "/run?id=linked",
        "/run?id=t%2F..%2F..%2Foutside%2Frun",
        "/api/run?id=linked",
        "/log?run=t&player=..%2F..%2F..%2Foutside%2Fsecret.txt",
        "/log?run=t&player=%2Fetc%2Fpasswd",
        "/log?run=..&player=random",
        "/log?run=t&player=random",
        "/game?run=..%2Foutside%2Frun&id=0",
        "/game?run=linked&id=0",
    ] {
        let r = get(&addr, target);
        assert!(
            r.status == 404 || r.status == 400,
            "{target}: status {} {}",
            r.status,
            r.body
        );
        secret_free(&r, target);
    }
    // The run folder behind a symbolic link is not listed.
    let index = get(&addr, "/");
    assert_eq!(index.status, 200);
    assert!(index.body.contains("/run?id=t\""), "{}", index.body);
    assert!(!index.body.contains("linked"), "{}", index.body);

    // Every page escapes the hostile name and log lines; the security headers are everywhere.
    let pages = [
        "/",
        "/api/runs",
        "/run?id=t",
        "/api/run?id=t",
        "/game?run=t&id=2",
        "/log?run=t&player=loud",
        "/nowhere",
        "/static/style.css",
        "/static/viewer.js",
    ];
    for target in pages {
        let r = get(&addr, target);
        assert!(
            r.status == 200 || target == "/nowhere",
            "{target}: {}",
            r.status
        );
        assert!(!r.body.contains(HOSTILE), "{target} holds the raw name");
        assert!(
            !r.body.contains("<script>alert(2)"),
            "{target} holds a raw log line"
        );
        let csp = r.header("content-security-policy").unwrap_or("");
        assert!(
            csp.contains("default-src 'none'") && csp.contains("script-src 'self'"),
            "{target}: CSP `{csp}`"
        );
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    }
    let page = get(&addr, "/run?id=t").body;
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{page}"
    );
    let log = get(&addr, "/log?run=t&player=loud").body;
    assert!(
        log.contains("&lt;script&gt;alert(2)&lt;/script&gt; &amp; &lt;b&gt;log&lt;/b&gt;"),
        "{log}"
    );
    let game = get(&addr, "/game?run=t&id=2").body;
    assert!(
        !game.contains("</script><"),
        "the game data cannot close its block"
    );
    let api = get(&addr, "/api/game?run=t&id=2");
    assert!(api
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));

    // Only GET (and HEAD); a foreign Host is refused while bound to loopback.
    for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
        for target in ["/", "/run?id=t", "/api/run?id=t"] {
            let r = http(&addr, method, target, &[], "x=1");
            assert_eq!(r.status, 405, "{method} {target}");
            assert!(r.header("content-security-policy").is_some());
        }
    }
    assert_eq!(http(&addr, "HEAD", "/", &[], "").status, 200);
    let rebinding = http(&addr, "GET", "/", &[("Host", "evil.example:8080")], "");
    assert_eq!(rebinding.status, 421);
    assert!(!rebinding.body.contains("/run?id=t"));
    // Serving changed nothing in the folder.
    assert_eq!(
        listing(&run),
        before,
        "the dashboard changed the run folder"
    );
}

/// Every file under `dir` with its size and modification time.
fn listing(dir: &Path) -> Vec<(std::path::PathBuf, u64, std::time::SystemTime)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            out.extend(listing(&path));
        } else {
            out.push((path, meta.len(), meta.modified().unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn binding_off_loopback_warns() {
    let dir = Dir::new("serve-bind");
    let (mut server, _addr) = serve(dir.path(), "0.0.0.0:0");
    let _ = server.0.kill();
    let _ = server.0.wait();
    let mut text = String::new();
    use std::io::Read;
    server
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    assert!(
        text.contains("warning: listening on 0.0.0.0:0, not a loopback address"),
        "{text}"
    );
}

/// A minimal WebDriver client (W3C protocol over HTTP) for chromedriver.
struct Driver {
    addr: String,
    session: String,
    _chromedriver: Killed,
}

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Whether a WebDriver server answers `GET /status` at `addr` as ready (no panic when nothing
/// listens: the caller is waiting for it).
fn status_ready(addr: &str) -> bool {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(addr) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let req = format!("GET /status HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    if stream.write_all(req.as_bytes()).is_err() {
        return false;
    }
    // Read until the answer says ready (the server may keep the connection open after it).
    let (mut answer, mut chunk) = (Vec::new(), [0u8; 4096]);
    while let Ok(n @ 1..) = stream.read(&mut chunk) {
        answer.extend_from_slice(&chunk[..n]);
        if String::from_utf8_lossy(&answer).contains("\"ready\":true") {
            return true;
        }
    }
    false
}

impl Driver {
    /// chromedriver on a free port, once it answers `/status` as ready; `None` if it exited
    /// first (its port was taken) or did not answer within 30 s.
    fn spawn_chromedriver() -> Option<(Killed, String)> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("/usr/bin/chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let mut chromedriver = Killed(child);
        let addr = format!("127.0.0.1:{port}");
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(30) {
            if chromedriver.0.try_wait().ok().flatten().is_some() {
                return None;
            }
            if status_ready(&addr) {
                return Some((chromedriver, addr));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        None
    }

    fn start(profile: &Path) -> Driver {
        // The port is chosen here and freed before chromedriver binds it, so another test can
        // take it in between (then chromedriver exits, or the probe reaches the other process):
        // a start counts only when this chromedriver answers its own `/status`, else a new port.
        let (chromedriver, addr) = (0..5)
            .find_map(|_| Driver::spawn_chromedriver())
            .expect("chromedriver did not start on any of 5 ports");
        let caps = json!({"capabilities": {"alwaysMatch": {
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {
            "binary": "/usr/bin/chromium",
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                     "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync",
                     "--window-size=1200,1600",
                     format!("--user-data-dir={}", profile.display())]
        }}}});
        let r = http(
            &addr,
            "POST",
            "/session",
            &[("Content-Type", "application/json")],
            &caps.to_string(),
        );
        let v: Value = serde_json::from_str(&r.body).expect("session JSON");
        let session = v["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {}", r.body))
            .to_string();
        Driver {
            addr,
            session,
            _chromedriver: chromedriver,
        }
    }

    fn cmd(&self, method: &str, path: &str, body: Value) -> Value {
        let r = http(
            &self.addr,
            method,
            &format!("/session/{}{path}", self.session),
            &[("Content-Type", "application/json")],
            &body.to_string(),
        );
        let v: Value = serde_json::from_str(&r.body).expect("WebDriver JSON");
        assert!(r.status == 200, "{method} {path}: {}", r.body);
        v["value"].clone()
    }

    fn goto(&self, url: &str) {
        self.cmd("POST", "/url", json!({ "url": url }));
    }

    fn js(&self, script: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            json!({ "script": script, "args": [] }),
        )
    }

    fn find(&self, css: &str) -> String {
        let v = self.cmd(
            "POST",
            "/element",
            json!({"using": "css selector", "value": css}),
        );
        v[ELEMENT].as_str().expect("element id").to_string()
    }

    fn click(&self, css: &str) {
        let el = self.find(css);
        self.cmd("POST", &format!("/element/{el}/click"), json!({}));
    }

    fn keys(&self, css: &str, text: &str) {
        let el = self.find(css);
        self.cmd(
            "POST",
            &format!("/element/{el}/value"),
            json!({ "text": text }),
        );
    }

    /// The browser console's errors so far (uncaught exceptions, failed loads, refused
    /// scripts or styles), as chromedriver collected them.
    fn console_errors(&self) -> Vec<String> {
        let log = self.cmd("POST", "/se/log", json!({ "type": "browser" }));
        log.as_array()
            .expect("log entries")
            .iter()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| e["message"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    /// Waits until `script` returns something truthy; returns it.
    fn wait(&self, script: &str, what: &str) -> Value {
        let started = Instant::now();
        loop {
            let v = self.js(script);
            if !(v.is_null() || v == json!(false) || v == json!(0) || v == json!("")) {
                return v;
            }
            assert!(
                started.elapsed() < Duration::from_secs(90),
                "timed out: {what}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = http(
            &self.addr,
            "DELETE",
            &format!("/session/{}", self.session),
            &[],
            "",
        );
    }
}

/// The board the viewer shows, read from the SVG it drew.
const BOARD_JS: &str = "
    const side = s => [...document.querySelectorAll('svg.board g.pit[data-side=\"' + s + '\"]')]
        .sort((a, b) => a.dataset.pit - b.dataset.pit)
        .map(g => +g.querySelector('text.count').textContent);
    const store = s => +document.querySelector('svg.board g.store[data-side=\"' + s + '\"] text').textContent;
    const root = document.querySelector('.viewer');
    return {south: side('south'), north: side('north'), stores: [store('south'), store('north')],
            ply: +root.dataset.ply, end: document.querySelector('.viewer-end').textContent};";

/// Whether the browser is installed (in CI it must be); says why `test` skips if not.
fn have_browser(test: &str) -> bool {
    let have =
        Path::new("/usr/bin/chromium").exists() && Path::new("/usr/bin/chromedriver").exists();
    if !have {
        assert!(
            !in_ci(),
            "CI must run the browser test: install chromium and chromium-driver"
        );
        skipped(
            test,
            "/usr/bin/chromium or /usr/bin/chromedriver is missing \
             (apt-get install -y chromium chromium-driver)",
        );
    }
    have
}

#[test]
fn a_browser_watches_a_run_and_steps_through_a_game() {
    if !have_browser("a_browser_watches_a_run_and_steps_through_a_game") {
        return;
    }
    let dir = Dir::new("serve-browser");
    let root = dir.join("results");
    std::fs::create_dir_all(&root).unwrap();
    let (_server, addr) = serve(&root, "127.0.0.1:0");
    // A tournament slow enough to watch: MCTS thinks 40 ms a sow, one game at a time.
    let out = root.join("live");
    let out_s = out.display().to_string();
    let run = Killed(
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args([
                "run",
                "--quiet",
                "--out",
                &out_s,
                "--pairs",
                "10",
                "--movetime",
                "40",
                "--concurrency",
                "1",
                "--seed",
                "5",
                "--bootstrap",
                "20",
                "--bot",
                "name=mcts",
                &format!("cmd={}", bot("mcts")),
                "--bot",
                "name=random",
                &format!("cmd={}", bot("random")),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the tournament"),
    );
    let driver = Driver::start(&dir.join("profile"));
    let base = format!("http://{addr}");
    // The runs page lists the new run once it exists.
    driver.goto(&format!("{base}/"));
    driver.wait(
        "return document.querySelector('#runs a[href=\"/run?id=live\"]') !== null",
        "the runs page lists the run",
    );
    // Each run with what tells it apart from the others: players, rules, time control, pairs
    // (issue 28: two runs read "arena-… (arena)" and nothing more), and what the order is.
    let row = driver
        .js("return document.querySelector('#runs tr[data-run=\"live\"]').textContent")
        .as_str()
        .unwrap()
        .to_string();
    for part in [
        "mcts, random",
        "kalah",
        "40 ms a sow",
        "10 pairs per encounter",
    ] {
        assert!(
            row.contains(part),
            "the runs page's line lacks {part:?}: {row}"
        );
    }
    let intro = driver
        .js("return document.querySelector('h1 + p').textContent")
        .as_str()
        .unwrap()
        .to_string();
    assert!(intro.contains("latest start first"), "{intro}");
    driver.click("#runs a[href=\"/run?id=live\"]");
    let first = driver
        .wait(
            "const e = document.getElementById('games-done'); return e && e.textContent",
            "the run page shows a game count",
        )
        .as_str()
        .unwrap()
        .parse::<u64>()
        .unwrap();
    assert!(
        first < 20,
        "the run finished before the page was shown ({first} games)"
    );
    let later = driver.wait(
        &format!(
            "const n = +document.getElementById('games-done').textContent; return n > {first} && n"
        ),
        "the game count rises while the run plays",
    );
    assert!(later.as_u64().unwrap() > first);
    assert!(driver
        .js("return document.querySelector('#ratings table') !== null")
        .as_bool()
        .unwrap());
    // Wait for the end of the run, then open a finished game from the page.
    driver.wait(
        "return document.querySelector('#progress .state.finished') !== null",
        "the run page shows the run finished",
    );
    drop(run);
    // The run page has what report.html and the terminal show: the pairwise table and the
    // first-mover advantage (issue 28), and says what the games list's order is.
    let run_page = driver.wait(
        "const p = document.querySelector('#pairwise table');
         const f = document.getElementById('first-move');
         return p && f && {heads: [...p.rows[0].cells].map(c => c.textContent),
                           rows: p.rows.length - 1, first: f.textContent,
                           setup: document.getElementById('progress').textContent,
                           recent: document.querySelector('table#recent').previousElementSibling.textContent};",
        "the run page's pairwise table and first-mover advantage",
    );
    let heads = run_page["heads"].as_array().unwrap();
    for label in ["player", "opponent", "W-D-L", "pairs LL", "WW", "Elo"] {
        assert!(heads.contains(&json!(label)), "{heads:?}");
    }
    // Issue 47.4: the LOS beside the encounter's own Elo is the joint fit's, and says so.
    assert!(
        heads.contains(&json!("LOS (joint fit)")) || heads.contains(&json!("LOS")),
        "{heads:?}"
    );
    assert_eq!(run_page["rows"], 1, "one encounter");
    let first = run_page["first"].as_str().unwrap();
    assert!(
        first.starts_with("First-mover advantage: ") && first.contains("Elo ["),
        "{first}"
    );
    let setup = run_page["setup"].as_str().unwrap();
    assert!(
        setup.contains("mcts, random") && setup.contains("40 ms a sow"),
        "{setup}"
    );
    let recent = run_page["recent"].as_str().unwrap();
    assert!(
        !recent.contains("newest first") && recent.contains("finished last first"),
        "{recent}"
    );
    driver.click("#recent a");
    driver.wait(
        "return document.querySelector('.viewer svg.board') !== null",
        "the viewer",
    );
    let start = driver.js(BOARD_JS);
    assert_eq!(start["ply"], 0);
    assert_eq!(start["south"], json!([4, 4, 4, 4, 4, 4]));
    for _ in 0..3 {
        driver.click("button[data-step=next]");
    }
    assert_eq!(driver.js(BOARD_JS)["ply"], 3);
    driver.keys(".viewer", "\u{E012}"); // ArrowLeft
    assert_eq!(driver.js(BOARD_JS)["ply"], 2);
    driver.keys(".viewer", "\u{E010}"); // End
    let shown = driver.js(BOARD_JS);
    let game_id: u64 = driver
        .js("return new URLSearchParams(location.search).get('id')")
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    // The same game's moves from games.jsonl, replayed by `arena replay --json`.
    let jsonl = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let record: Value = jsonl
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["game_id"] == game_id)
        .expect("the game in games.jsonl");
    let moves: Vec<String> = record["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    assert_eq!(shown["ply"].as_u64().unwrap() as usize, moves.len());
    let mut args = vec!["replay", "--json", "--rules", "kalah"];
    args.extend(moves.iter().map(String::as_str));
    let replay: Value = serde_json::from_str(&arena_ok(&args)).unwrap();
    assert_eq!(shown["south"], replay["pits"]["south"], "south's pits");
    assert_eq!(shown["north"], replay["pits"]["north"], "north's pits");
    assert_eq!(
        shown["stores"],
        json!([replay["stores"]["south"], replay["stores"]["north"]])
    );
    let end = shown["end"].as_str().unwrap();
    assert!(end.contains(record["result"].as_str().unwrap()), "{end}");
    // A rules end in words, not the engine's name (issue 28).
    for name in ["SideEmpty", "NoMove", "SowCap"] {
        assert!(!end.contains(name), "{end}");
    }
    if record["detail"] == "SideEmpty" {
        assert!(end.contains("normal: one side's pits were empty"), "{end}");
    }
    assert!(
        end.contains(record["termination"].as_str().unwrap()),
        "{end}"
    );
    let errors = driver.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");

    // The same viewer in report.html, opened from the file.
    driver.goto(&format!("file://{}", out.join("report.html").display()));
    let options = driver.wait(
        "return document.querySelectorAll('#games .game-pick option').length",
        "report.html's viewer",
    );
    assert_eq!(options, 20);
    driver.keys("#games .viewer", "\u{E010}");
    let last = driver.js(BOARD_JS);
    assert!(last["ply"].as_u64().unwrap() > 0);
    assert!(last["end"].as_str().unwrap().starts_with("Result "));
    // The pairwise table as the browser lays it out: every count sits in a column of its own,
    // right under its label (issue 28: five counts packed into one cell did not).
    let layout = driver.js(
        "const t = document.querySelector('#pairwise table');
         const heads = [...t.rows[0].cells].map(c => c.textContent);
         const rows = [...t.rows].slice(1).map(r => [...r.cells].map(c => c.textContent));
         const ll = [...t.rows].map(r => r.cells[heads.indexOf('pairs LL')].getBoundingClientRect());
         return {heads, rows, aligned: ll.every(b => Math.abs(b.right - ll[0].right) < 1)};",
    );
    let heads = layout["heads"].as_array().unwrap();
    for label in ["pairs LL", "LD", "DD/WL", "WD", "WW"] {
        assert!(heads.contains(&json!(label)), "{heads:?}");
    }
    for row in layout["rows"].as_array().unwrap() {
        let cells = row.as_array().unwrap();
        assert_eq!(cells.len(), heads.len(), "{cells:?}");
        let ll = heads.iter().position(|h| h == "pairs LL").unwrap();
        for count in &cells[ll..ll + 5] {
            assert!(count.as_str().unwrap().parse::<u32>().is_ok(), "{cells:?}");
        }
    }
    assert_eq!(layout["aligned"], true);
}

/// `/api/run?id=ID` as JSON (panics on any other status).
fn api_run(addr: &str, id: &str) -> Value {
    let r = get(addr, &format!("/api/run?id={id}"));
    assert_eq!(r.status, 200, "/api/run?id={id}: {}", r.body);
    serde_json::from_str(&r.body).expect("/api/run JSON")
}

/// The HTML of the section `name` in an `/api/run` answer.
fn section(api: &Value, name: &str) -> String {
    api["sections"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s[0] == name))
        .and_then(|s| s[1].as_str())
        .unwrap_or_else(|| panic!("no `{name}` section: {api}"))
        .to_string()
}

/// The number of points of each `<polyline>` drawn `width` wide in `svg`.
fn polylines(svg: &str, width: &str) -> Vec<usize> {
    svg.lines()
        .filter(|l| l.starts_with("<polyline") && l.contains(&format!("stroke-width=\"{width}\"")))
        .filter_map(|l| l.split("points=\"").nth(1)?.split('"').next())
        .map(|points| points.split_whitespace().count())
        .collect()
}

#[test]
fn an_sprt_run_page_shows_the_llr_path_against_its_bounds() {
    let dir = Dir::new("serve-sprt");
    let root = dir.join("results");
    std::fs::create_dir_all(&root).unwrap();
    let (_server, addr) = serve(&root, "127.0.0.1:0");
    let out = root.join("sprt");
    let o = arena(&[
        "sprt",
        "--quiet",
        "--no-plots",
        "--base",
        &bot("random"),
        "--test",
        &bot("greedy"),
        "--elo0",
        "0",
        "--elo1",
        "200",
        "--max-pairs",
        "8",
        "--movetime",
        "5000",
        "--seed",
        "2",
        "--out",
        &out.display().to_string(),
    ]);
    assert!(
        matches!(o.status.code(), Some(0 | 3 | 4)),
        "arena sprt failed: {}",
        text(&o.stderr)
    );
    let sprt: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("sprt.json")).unwrap()).unwrap();
    let pairs = sprt["pairs"].as_u64().unwrap();
    assert!(pairs > 0);
    let api = api_run(&addr, "sprt");
    assert_eq!(api["state"], "finished", "{api}");
    let plot = section(&api, "sprt");
    assert!(plot.contains("<svg"), "{plot}");
    assert!(plot.contains(&format!("after {pairs} pairs")), "{plot}");
    // The LLR path (drawn 3 wide) and the two bounds (2 wide), from 0 through every pair, then
    // their marks in the legend (2 points each).
    let n = pairs as usize + 1;
    assert_eq!(polylines(&plot, "3"), [n, 2], "{plot}");
    assert_eq!(polylines(&plot, "2"), [n, n, 2, 2], "{plot}");
    let texts: Vec<&str> = plot.lines().map(str::trim).collect();
    for label in ["LLR", "upper bound (accept H1)", "lower bound (accept H0)"] {
        assert!(texts.contains(&label), "no `{label}` in {plot}");
    }
    let page = get(&addr, "/run?id=sprt");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<section id=\"sprt\">") && page.body.contains("upper bound"));
    // Issue 47.4: the dashboard gives the verdict line's estimate with its interval.
    let stdout = text(&o.stdout);
    let verdict = stdout.lines().last().expect("a verdict line");
    let elo = verdict
        .split(": Elo ")
        .nth(1)
        .and_then(|r| r.split(" (LLR").next())
        .unwrap_or_else(|| panic!("no estimate in the verdict line `{verdict}`"));
    let words = format!("Elo of test over base: {elo}");
    assert!(page.body.contains(&words), "`{words}` not on the page");
}

#[test]
fn a_calibration_is_shown_live_and_then_finished_with_its_curve() {
    let dir = Dir::new("serve-calibration");
    let root = dir.join("results");
    std::fs::create_dir_all(&root).unwrap();
    let (_server, addr) = serve(&root, "127.0.0.1:0");
    // Given pool Elos (no reference games); MCTS thinks 30 ms a sow, so a step of four games
    // takes a second or two and the four steps (16 games, the budget) several seconds.
    let out = root.join("cal");
    let mut calibrate = Killed(
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args([
                "calibrate",
                "--quiet",
                "--bot",
                &bot("alphabeta"),
                "--bot-option",
                "Level=easy",
                "--knob",
                "option.Noise=0.0..2.0",
                "--targets",
                "1000",
                "--reference",
                "random=700,mcts=1300",
                "--max-games",
                "16",
                "--initial-points",
                "3",
                "--max-pairs",
                "1",
                "--movetime",
                "30",
                "--concurrency",
                "1",
                "--out",
                &out.display().to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start arena calibrate"),
    );
    // While it runs: the curve and the points measured so far, the runs page's progress.
    let started = Instant::now();
    let live = loop {
        if let Some(status) = calibrate.0.try_wait().unwrap() {
            panic!("the calibration ended ({status}) before the dashboard showed a point");
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no point shown"
        );
        let r = get(&addr, "/api/run?id=cal");
        if r.status == 200 {
            let api: Value = serde_json::from_str(&r.body).expect("JSON");
            if api["points"].as_u64().unwrap_or(0) >= 1 {
                break api;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let runs: Value = serde_json::from_str(&get(&addr, "/api/runs").body).unwrap();
    let runs = runs["html"].as_str().unwrap().to_string();
    assert!(calibrate.0.try_wait().unwrap().is_none(), "ended meanwhile");
    assert_eq!(live["state"], "running", "{live}");
    assert!(section(&live, "curve").contains("<svg"), "{live}");
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("calibration.json")).unwrap())
            .unwrap();
    assert_eq!(file["finished"], false);
    assert!(!file["points"].as_array().unwrap().is_empty());
    // The runs page: calibration games against the budget, and a remaining time.
    let row = runs
        .lines()
        .find(|l| l.contains("href=\"/run?id=cal\""))
        .unwrap_or_else(|| panic!("no calibration line: {runs}"));
    assert!(row.contains(" / 16</td>"), "{row}");
    assert!(
        !row.ends_with("<td>–</td></tr>"),
        "no remaining time: {row}"
    );
    let page = get(&addr, "/run?id=cal").body;
    assert!(
        page.contains("id=\"live\"") && page.contains("<section id=\"curve\">"),
        "{page}"
    );

    // Once it has ended: finished, with the final curve and every point.
    let status = calibrate.0.wait().unwrap();
    let mut stderr = String::new();
    use std::io::Read;
    calibrate
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "arena calibrate failed: {stderr}");
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("calibration.json")).unwrap())
            .unwrap();
    assert_eq!(file["finished"], true);
    let done = api_run(&addr, "cal");
    assert_eq!(done["state"], "finished", "{done}");
    assert_eq!(
        done["points"],
        json!(file["points"].as_array().unwrap().len())
    );
    let curve = section(&done, "curve");
    assert!(
        curve.contains("<svg") && curve.contains("target"),
        "{curve}"
    );
}

/// The dashboard's run states come from the folder's `state.json` (issue 26), not from file
/// times: a run killed with SIGKILL (which cannot say so) is interrupted at once, with a reason;
/// an SPRT that decided says it was stopped by the SPRT.
#[test]
fn the_dashboard_reads_the_state_each_run_recorded() {
    let dir = Dir::new("serve-state");
    let root = dir.join("results");
    std::fs::create_dir_all(&root).unwrap();
    let (_server, addr) = serve(&root, "127.0.0.1:0");

    // A run far too long to finish, killed with SIGKILL once it has played a game.
    let out = root.join("killed");
    let mut run = Killed(
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args([
                "run",
                "--quiet",
                "--no-plots",
                "--pairs",
                "100000",
                "--movetime",
                "5000",
            ])
            .args(["--bot", "name=a", &format!("cmd={}", bot("random"))])
            .args(["--bot", "name=b", &format!("cmd={}", bot("greedy"))])
            .args(["--out", &out.display().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start arena run"),
    );
    let started = Instant::now();
    while !out.join("games.csv").exists() || games(&out).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no game after 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let live = api_run(&addr, "killed");
    assert_eq!(live["state"], "running", "{live}");
    assert_eq!(live["reason"], Value::Null, "{live}");
    run.0.kill().unwrap(); // SIGKILL
    run.0.wait().unwrap();
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("state.json")).unwrap()).unwrap();
    assert_eq!(
        recorded["state"], "running",
        "the killed run could not record its end"
    );
    let api = api_run(&addr, "killed");
    assert_eq!(api["state"], "interrupted", "{api}");
    let reason = api["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("ended without saying why"), "{api}");
    let progress = api["progress"].as_str().unwrap();
    assert!(progress.contains("arena run --resume"), "{progress}");

    // An SPRT that reaches its decision: greedy is far more than 100 Elo above random.
    let out = root.join("decided");
    let o = arena(&[
        "sprt",
        "--quiet",
        "--no-plots",
        "--base",
        &bot("random"),
        "--test",
        &bot("greedy"),
        "--elo0",
        "0",
        "--elo1",
        "100",
        "--max-pairs",
        "500",
        "--movetime",
        "5000",
        "--out",
        &out.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(0), "H1 expected: {}", text(&o.stderr));
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("state.json")).unwrap()).unwrap();
    assert_eq!(recorded["state"], "stopped", "{recorded}");
    assert_eq!(recorded["reason"], "the SPRT accepted H1", "{recorded}");
    let api = api_run(&addr, "decided");
    assert_eq!(api["state"], "finished", "{api}");
    assert_eq!(api["reason"], "the SPRT accepted H1", "{api}");
    let page = get(&addr, "/run?id=decided");
    assert!(page.body.contains("The SPRT accepted H1."), "{}", page.body);
}

// Issue 32: hostile files in a served folder.

/// `GET target` that must be answered within `limit` (the test fails instead of hanging).
fn get_within(addr: &str, target: &str, limit: Duration) -> HttpResponse {
    let (tx, rx) = std::sync::mpsc::channel();
    let (addr, asked) = (addr.to_string(), target.to_string());
    std::thread::spawn(move || {
        let _ = tx.send(get(&addr, &asked));
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("no answer to {target} within {limit:?}"))
}

/// A finished one-pair run of two random bots in `root/NAME`.
fn small_run(root: &Path, name: &str) -> std::path::PathBuf {
    let out = root.join(name);
    arena_ok(&[
        "run",
        "--quiet",
        "--no-plots",
        "--out",
        &out.display().to_string(),
        "--pairs",
        "1",
        "--bot",
        "name=a",
        &format!("cmd={}", bot("random")),
        "--bot",
        "name=b",
        &format!("cmd={}", bot("random")),
    ]);
    out
}

#[test]
fn r32_a_fifo_in_a_run_folder_does_not_hold_up_the_server() {
    let dir = Dir::new("serve-r32-fifo");
    let root = dir.join("results");
    std::fs::create_dir_all(&root).unwrap();
    let out = small_run(&root, "fifo");
    small_run(&root, "plain");
    let games = out.join("games.csv");
    std::fs::remove_file(&games).unwrap();
    let fifo = std::ffi::CString::new(games.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let (_server, addr) = serve(&root, "127.0.0.1:0");
    let limit = Duration::from_secs(20);
    let index = get_within(&addr, "/", limit);
    assert_eq!(index.status, 200);
    assert!(index.body.contains("plain"), "{}", index.body);
    let runs = get_within(&addr, "/api/runs", limit);
    assert_eq!(runs.status, 200, "{}", runs.body);
    let page = get_within(&addr, "/run?id=fifo", limit);
    assert!(
        page.body.contains("games.csv") && page.body.contains("FIFO"),
        "{}",
        page.body
    );
}

/// The peak resident memory of process `pid` in MiB (`VmHWM` in /proc/PID/status).
fn peak_rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    kib / 1024
}

#[test]
fn r32_an_endless_last_line_is_not_read_whole() {
    let dir = Dir::new("serve-r32-endless");
    let root = dir.join("results");
    std::fs::create_dir_all(&root).unwrap();
    let out = small_run(&root, "endless");
    // games.jsonl and games.csv each end in a 1 GiB line without a line end (sparse: cheap).
    for file in ["games.jsonl", "games.csv"] {
        let f = std::fs::OpenOptions::new()
            .append(true)
            .open(out.join(file))
            .unwrap();
        let len = f.metadata().unwrap().len();
        f.set_len(len + (1 << 30)).unwrap();
    }
    let (server, addr) = serve(&root, "127.0.0.1:0");
    let started = Instant::now();
    let limit = Duration::from_secs(20);
    assert_eq!(get_within(&addr, "/", limit).status, 200);
    assert_eq!(get_within(&addr, "/api/runs", limit).status, 200);
    assert_eq!(get_within(&addr, "/api/run?id=endless", limit).status, 200);
    let page = get_within(&addr, "/run?id=endless", limit);
    assert!(page.body.contains("without a line end"), "{}", page.body);
    let took = started.elapsed();
    let peak = peak_rss_mib(server.0.id());
    assert!(peak < 256, "the server grew to {peak} MiB");
    // Reading the 1 GiB lines would take minutes; the four pages take well under a second on
    // an idle machine, seconds on a busy one.
    assert!(took < Duration::from_secs(15), "four pages took {took:?}");
}

/// A tune's page (issue 31) in a real browser while `arena tune` plays and once it has ended:
/// it loads without a console error, moves on its own as iterations complete, draws one line
/// per parameter through every iteration, and its numbers are `tune.json`'s and `tuned.txt`'s.
#[test]
fn a_browser_watches_a_tune_and_its_numbers_are_tune_json() {
    if !have_browser("a_browser_watches_a_tune_and_its_numbers_are_tune_json") {
        return;
    }
    let dir = Dir::new("serve-tune");
    let root = dir.join("results");
    std::fs::create_dir_all(&root).unwrap();
    let params = dir.join("params.txt");
    std::fs::write(
        &params,
        "EvalCapture, 0, -16, 16, 2, 0.05\nEvalMobility, int, 0, -16, 16, 2, 0.05\n\
         EvalStore, 4, 0, 16, 1, 0.05\n",
    )
    .unwrap();
    let (_server, addr) = serve(&root, "127.0.0.1:0");
    let out = root.join("tune");
    // Fixed depth 8, one game at a time: an iteration of two pairs takes about a second here,
    // slow enough to watch the page move; the verification at depth 2 is quick.
    let mut tune = Killed(
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args([
                "tune",
                "--quiet",
                "--bot",
                &bot("alphabeta"),
                "--params",
                &params.display().to_string(),
                "--iterations",
                "10",
                "--pairs-per-iteration",
                "2",
                "--depth",
                "8",
                "--concurrency",
                "1",
                "--seed",
                "3",
                "--verify-depth",
                "2",
                "--verify-max-pairs",
                "4",
                "--out",
                &out.display().to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start arena tune"),
    );
    let driver = Driver::start(&dir.join("profile"));
    let base = format!("http://{addr}");
    driver.goto(&format!("{base}/"));
    driver.wait(
        "return document.querySelector('#runs a[href=\"/run?id=tune\"]') !== null",
        "the runs page lists the tune",
    );
    driver.click("#runs a[href=\"/run?id=tune\"]");
    let count = "const c = document.getElementById('tune-count'); \
                 return c && +c.dataset.iterations";
    let first = driver
        .wait(
            &format!(
                "{count} >= 1 && document.querySelector('#progress .state.running') !== null \
                 && +c.dataset.iterations"
            ),
            "the tune page shows an iteration done while the tune runs",
        )
        .as_u64()
        .unwrap();
    assert!(
        first < 10,
        "the tune ended before the page showed it running"
    );
    // The page moves on its own: the iteration count, then the end and the verdict.
    driver.wait(
        &format!("{count} > {first}"),
        "the iteration count rises while the tune runs",
    );
    driver.wait(
        "return document.querySelector('#progress .state.finished') !== null \
         && document.getElementById('tune-verdict') !== null",
        "the tune page shows the tune finished with its verdict",
    );
    let status = tune.0.wait().unwrap();
    let mut stderr = String::new();
    use std::io::Read;
    tune.0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(
        matches!(status.code(), Some(0 | 3 | 4)),
        "arena tune failed: {stderr}"
    );
    let shown = driver.js(
        "const cells = t => [...t.rows].map(r => [...r.cells].map(c => c.textContent));
         const lines = [...document.querySelectorAll('#trajectory svg polyline')]
             .filter(p => p.getAttribute('stroke-width') === '3')
             .map(p => p.getAttribute('points').trim().split(/\\s+/).length)
             .filter(n => n > 2);
         const c = document.getElementById('tune-count');
         return {iterations: +c.dataset.iterations, pairs: +c.dataset.pairs,
                 params: cells(document.querySelector('#tune-params table')),
                 steps: cells(document.getElementById('tune-steps')),
                 lines: lines,
                 verdict: document.getElementById('tune-verdict').dataset.verdict,
                 games: document.getElementById('games-done').textContent};",
    );
    let errors = driver.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");

    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tune.json")).unwrap()).unwrap();
    let steps = file["steps"].as_array().unwrap();
    let last = steps.last().unwrap();
    let setup_params = file["setup"]["params"].as_array().unwrap();
    assert_eq!(shown["iterations"], json!(steps.len()));
    assert_eq!(shown["pairs"], last["pairs"]);
    assert_eq!(
        shown["games"],
        json!((2 * last["pairs"].as_u64().unwrap()).to_string())
    );
    assert_eq!(shown["verdict"], file["verify"]["verdict"]);
    // One line per parameter, from the start through every iteration.
    assert_eq!(
        shown["lines"],
        json!(vec![steps.len() + 1; setup_params.len()]),
        "{shown}"
    );
    // The parameters' table: θ after the last iteration, moved in units of c_end, the tuned
    // value a bot gets.
    let tuned = std::fs::read_to_string(out.join("tuned.txt")).unwrap();
    let table = shown["params"].as_array().unwrap();
    let heads: Vec<&str> = table[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    let col = |name: &str| heads.iter().position(|h| *h == name).unwrap();
    assert_eq!(table.len() - 1, setup_params.len(), "{shown}");
    for (i, p) in setup_params.iter().enumerate() {
        let row = &table[i + 1];
        let theta = last["theta"][i].as_f64().unwrap();
        let moved = (theta - p["start"].as_f64().unwrap()) / p["c_end"].as_f64().unwrap();
        assert_eq!(row[col("parameter")], p["name"]);
        assert_eq!(row[col("θ")], json!(format!("{theta:.4}")));
        assert_eq!(
            row[col("(θ − start) / c_end")],
            json!(format!("{moved:+.2}"))
        );
        assert_eq!(
            row[col("c_k")],
            json!(format!("{:.4}", last["c"][i].as_f64().unwrap()))
        );
        let name = p["name"].as_str().unwrap();
        let value = tuned
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name},")))
            .unwrap();
        assert_eq!(row[col("tuned")], json!(value));
    }
    // The latest iterations, the latest first, with their raw θ.
    let rows = &shown["steps"].as_array().unwrap()[1..];
    assert_eq!(rows.len(), steps.len());
    for (row, step) in rows.iter().zip(steps.iter().rev()) {
        assert_eq!(row[0], json!(step["iteration"].to_string()));
        assert_eq!(row[1], json!(step["pairs"].to_string()));
        for i in 0..setup_params.len() {
            assert_eq!(
                row[3 + i],
                json!(format!("{:.4}", step["theta"][i].as_f64().unwrap()))
            );
        }
    }
    // The runs page lists the tune once, finished, with its games; its iteration folders are
    // on its page (the verification stays a run of its own, listed once the server has walked
    // the folders again: every 2 s at most).
    let started = Instant::now();
    let runs = loop {
        let runs: Value = serde_json::from_str(&get(&addr, "/api/runs").body).unwrap();
        let runs = runs["html"].as_str().unwrap().to_string();
        if runs.contains("href=\"/run?id=tune%2Fverify\"")
            || started.elapsed() > Duration::from_secs(10)
        {
            break runs;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let row = runs
        .lines()
        .find(|l| l.contains("href=\"/run?id=tune\""))
        .unwrap_or_else(|| panic!("no tune line: {runs}"));
    assert!(
        row.contains("finished") && row.contains(&format!("<td>{0} / {0}</td>", 2 * 10 * 2)),
        "{row}"
    );
    assert!(!runs.contains("iter-0000"), "{runs}");
    assert!(runs.contains("href=\"/run?id=tune%2Fverify\""), "{runs}");
    // arena tune drew the same trajectory into its folder.
    assert!(std::fs::read_to_string(out.join("trajectory.svg"))
        .unwrap()
        .contains("SPSA trajectory"));
    assert!(out.join("trajectory.png").exists());
}

/// #48 point 18: docs/solved.md said the folder `arena analyse x.pgn` writes is treated "as any
/// run", but `arena serve` listed no run for it and `/run?id=` and `/game?` answered 404 (it
/// had no `run.json`). The folder is now a results folder the dashboard lists, finished, with
/// its run page and every game's viewer.
#[test]
fn the_folder_analyse_writes_from_pgn_is_a_run_on_the_dashboard() {
    let dir = Dir::new("serve-analysed-pgn");
    let root = dir.join("results");
    std::fs::create_dir_all(&root).unwrap();
    let out = root.join("club");
    let pgn = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/analyse/hand-written.pgn");
    let db = dir.join("db");
    std::fs::create_dir_all(&db).unwrap();
    let o = arena_env(
        &[
            "analyse",
            pgn.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--no-report",
        ],
        &[("MANCALA_SOLVER_DB", &db), ("XDG_CACHE_HOME", &db)],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (_server, addr) = serve(&root, "127.0.0.1:0");
    let runs: Value = serde_json::from_str(&get(&addr, "/api/runs").body).unwrap();
    let listed = runs["html"].as_str().unwrap();
    assert!(listed.contains("data-run=\"club\""), "{listed}");
    assert!(listed.contains("<td class=\"name\">pgn</td>"), "{listed}");
    assert!(listed.contains("state finished"), "{listed}");
    let page = get(&addr, "/run?id=club");
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains("ada") && page.body.contains("ben"),
        "{}",
        page.body
    );
    for id in 0..3 {
        let game = get(&addr, &format!("/game?run=club&id={id}"));
        assert_eq!(game.status, 200, "game {id}: {}", game.body);
        let api = get(&addr, &format!("/api/game?run=club&id={id}"));
        assert_eq!(api.status, 200, "game {id}: {}", api.body);
    }
}

/// #48 point 15: `arena serve` parsed `tune.json` again for every request: 20 requests at once
/// on a 60 MB `tune.json` took it to 2.2-2.3 GiB. The file is parsed once per change and
/// shared, and the pages are rendered a bounded number at a time: the server's peak resident
/// memory (the kernel's `VmHWM`) stays under 500 MiB.
#[test]
fn a_huge_tune_json_is_parsed_once_for_many_requests() {
    let dir = Dir::new("serve-huge-tune");
    let root = dir.join("results");
    let tune = root.join("t");
    std::fs::create_dir_all(&root).unwrap();
    let params = dir.join("params.txt");
    std::fs::write(
        &params,
        "EvalCapture, int, 0, -16, 16, 2, 0.05\nEvalMobility, int, 0, -16, 16, 2, 0.05\n",
    )
    .unwrap();
    arena_ok(&[
        "tune",
        "--quiet",
        "--no-plots",
        "--no-verify",
        "--bot",
        &bot("alphabeta"),
        "--params",
        params.to_str().unwrap(),
        "--iterations",
        "2",
        "--pairs-per-iteration",
        "1",
        "--depth",
        "1",
        "--rules",
        "kalah:pits=4,seeds=3",
        "--out",
        tune.to_str().unwrap(),
    ]);
    // Its trajectory repeated to 60 MB (under the 64 MiB a JSON file of a folder may have), as
    // a tune of 130,000 iterations writes it.
    let path = tune.join("tune.json");
    let mut file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let step = file["steps"][0].clone();
    let mut with_steps = |n: u64| {
        let steps: Vec<Value> = (0..n)
            .map(|i| {
                let mut s = step.clone();
                s["iteration"] = json!(i);
                s["pairs"] = json!(i + 1);
                s
            })
            .collect();
        file["steps"] = Value::Array(steps);
        file["setup"]["iterations"] = json!(n);
        serde_json::to_string_pretty(&file).unwrap()
    };
    let per_1000 = with_steps(1000).len() as u64;
    let text = with_steps(60_000_000 * 1000 / per_1000);
    std::fs::write(&path, &text).unwrap();
    assert!(
        (59_000_000..64 << 20).contains(&text.len()),
        "{}",
        text.len()
    );
    let (server, addr) = serve(&root, "127.0.0.1:0");
    let threads: Vec<_> = (0..20)
        .map(|k| {
            let addr = addr.clone();
            std::thread::spawn(move || {
                let target = if k % 2 == 0 { "/run?id=t" } else { "/api/runs" };
                get(&addr, target).status
            })
        })
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), 200);
    }
    let peak = peak_rss_mib(server.0.id());
    assert!(peak < 500, "the server grew to {peak} MiB");
}

/// #47 point 5, on a calibration on the site's human scale as a browser shows it: the anchor
/// list of the rating behind the scale (thirty loose anchors) was printed twice in a `<pre>`
/// that ran off the page, the level's name was cut (`mancala-alphabeta L…`) in the table and
/// ran off the figure, and the humans axis read `0,0,1,1,2,2,2,...`.
#[test]
fn a_calibration_page_on_the_human_scale_fits_the_window() {
    if !have_browser("a_calibration_page_on_the_human_scale_fits_the_window") {
        return;
    }
    let dir = Dir::new("serve-matchmaking");
    let root = dir.join("results");
    std::fs::create_dir_all(&root).unwrap();
    let scale = site_scale(&dir);
    let level = "mancala-alphabeta Level=normal";
    let out = root.join("cal");
    // A quick calibration (a wide tolerance, 24 games): the page, not the curve, is tested.
    arena_ok(&[
        "calibrate",
        "--quiet",
        "--bot",
        &bot("alphabeta"),
        "--bot-option",
        "Level=normal",
        "--knob",
        "option.Noise=0.0..3.0",
        "--targets",
        "1100,1500",
        "--reference-ratings",
        &scale.join("ratings.csv").display().to_string(),
        "--level-name",
        level,
        "--tolerance",
        "300",
        "--max-games",
        "24",
        "--max-pairs",
        "1",
        "--opening-plies",
        "2",
        "--concurrency",
        "2",
        "--seed",
        "5",
        "--out",
        &out.display().to_string(),
        "--reference-bot",
        &format!("name=easy cmd={}", bot("random")),
        "--reference-bot",
        &format!("name=normal cmd={}", bot("greedy")),
        "--reference-bot",
        &format!(
            "name=hard cmd={} option.Level=normal option.Noise=0",
            bot("alphabeta")
        ),
    ]);
    // One anchor of the list, as the rating's summary.json gives it.
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(scale.join("summary.json")).unwrap())
            .unwrap();
    let anchor = summary["anchor"].as_str().unwrap().to_string();
    let one = anchor
        .split(", ")
        .nth(3)
        .unwrap_or_else(|| panic!("a short anchor list: {anchor}"))
        .to_string();

    let (_server, addr) = serve(&root, "127.0.0.1:0");
    let profile = dir.join("profile");
    let driver = Driver::start(&profile);
    driver.goto(&format!("http://{addr}/run?id=cal"));
    driver.wait(
        "return document.querySelector('#matchmaking svg') !== null",
        "the matchmaking figure",
    );
    let page = driver.js(&format!(
        "const mm = document.getElementById('matchmaking');
         const text = document.body.innerText;
         const wide = [...mm.querySelectorAll('p, pre, div, details, table')]
             .filter(e => e.scrollWidth > e.clientWidth + 1)
             .map(e => e.tagName + ' ' + e.scrollWidth + ' > ' + e.clientWidth);
         const svg = mm.querySelector('svg').getBoundingClientRect();
         const labels = [...mm.querySelectorAll('svg text')];
         const name = labels.find(t => t.textContent.includes({level:?}));
         const box = name ? name.getBoundingClientRect() : null;
         const ticks = labels.filter(t => t.getAttribute('text-anchor') === 'end'
                 && /^[-0-9.]+$/.test(t.textContent.trim()))
             .map(t => t.textContent.trim());
         return {{
             anchors: text.split({one:?}).length - 1,
             page: [document.documentElement.scrollWidth, window.innerWidth],
             wide,
             cut: text.includes('mancala-alphabeta L…'),
             table: (mm.querySelector('table') || mm.querySelector('pre')).innerText,
             name: box ? [box.left - svg.left, box.right - svg.left, svg.width] : null,
             ticks,
         }};"
    ));
    // a. The anchor list once, and nothing wider than its box or the window.
    assert_eq!(page["anchors"], 1, "{one} on the page: {page}");
    let (width, window) = (page["page"][0].as_f64(), page["page"][1].as_f64());
    assert!(width <= window, "the page scrolls sideways: {page}");
    assert_eq!(
        page["wide"],
        json!([]),
        "elements wider than their box: {page}"
    );
    // b. The level's whole name in every row of the table and on the figure.
    assert_eq!(page["cut"], false, "a cut name: {page}");
    let table = page["table"].as_str().unwrap();
    let rows: Vec<&str> = table.lines().filter(|l| l.contains('–')).collect();
    assert!(rows.len() > 5, "{table}");
    assert!(rows.iter().all(|r| r.contains(level)), "{table}");
    let name = page["name"]
        .as_array()
        .expect("the level's label on the figure");
    let (left, right, svg_width) = (
        name[0].as_f64().unwrap(),
        name[1].as_f64().unwrap(),
        name[2].as_f64().unwrap(),
    );
    assert!(
        left >= 0.0 && right <= svg_width,
        "the level's label lies at {left:.0}..{right:.0} of 0..{svg_width:.0}"
    );
    // c. The humans axis: whole numbers, each once.
    let ticks: Vec<&str> = page["ticks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let mut distinct = ticks.clone();
    distinct.dedup();
    assert!(ticks.len() >= 3 && distinct == ticks, "{ticks:?}");
    assert!(ticks.iter().all(|t| !t.contains('.')), "{ticks:?}");
    assert!(
        driver.console_errors().is_empty(),
        "{:?}",
        driver.console_errors()
    );
}
