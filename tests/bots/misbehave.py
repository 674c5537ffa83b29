#!/usr/bin/env python3
"""A deliberately broken bot for the harness's fault tests (standard library only).

    misbehave.py MODE [--after N] [-- REAL_BOT ARGS...]

It speaks the protocol correctly (forwarding every line to REAL_BOT, a real bot started as its
child, when one is given; otherwise answering `bestmove 1`) until the (N+1)-th `go`, where it
misbehaves as MODE says:

  crash-on-go    exits with status 3
  hang           stops answering (ignores `stop`), keeps running
  illegal        answers `bestmove 99` (out of range on every board)
  malformed      answers `bestmove banana`
  garbage        prints bytes that are not UTF-8, never a bestmove
  endless-line   prints one line without end
  slow           answers correctly but 1.5 s late
  no-handshake   never says `mancalaok` (MODE applies at start; --after is ignored)
  exit-at-start  exits at once with status 1 (--after is ignored)
  stray          answers every `isready` with `readyok` and `bestmove 6` (one write), never a `go`
  double         answers each `go` with its `bestmove` twice (both lines in one write)
  flood-crash    writes 9 MiB to stderr, then exits with status 3
  crash-keep-out exits with status 3, leaving a child process that holds its stdout open
  daemon         behaves, but first leaves a double-forked `setsid` daemon behind
  malformed-nul  answers `bestmove ` and a NUL byte
  id-flood       answers `mancala` with `id name ...` lines (1 KiB each) without end
  slow-handshake sleeps 5 s (deaf to its input) before answering `mancala`
  bom            answers `mancala` with a UTF-8 byte-order mark before `mancalaok`
  unflushed      behaves, but never flushes its stdout (Python's `print` on a pipe, C's `printf`
                 without `fflush`): its answers sit in its buffer and nothing reaches the arena
  hostile        at its first `go`, tries what a sandbox must stop, then plays on: SIGKILL to
                 the pid in --target-file, a write to --outside FILE, a TCP connection to
                 127.0.0.1:--port; writes what happened to --report FILE (in its own folder)
  escape         at its first `go`, tries to leave the sandbox's walls, then plays on: the
                 terminal (/dev/tty, and with --tty-inject a TIOCSTI keystroke line `PWNED`),
                 a Unix socket at --unix PATH, what /run lists, a write to /dev (with --dev-write), --shm-mib MiB
                 into /dev/shm, a write to /tmp, a --alloc-mib MiB allocation; writes what
                 happened to --report FILE (JSON)
  exit-child-prints  at the go, leaves a child in its process group that prints `info` lines
                 at once and without pause, and `bestmove 1` after 0.5 s, then exits with status 3
  behave         never misbehaves

With --pid-file PATH it first writes its own pid and the child's to PATH (for zombie checks).
With --delay MS it waits that long before answering each `go` (a slow but otherwise correct bot).
With --ready-delay MS it waits that long, idle, before each `readyok` after a `newgame` (a bot the
machine gives no CPU while it gets ready for a game, as a busy machine does).
With --burn MS it computes for MS of its own CPU time before answering each `go` (a bot that
thinks: its CPU time, not its wall time, is what a busy machine cannot take from it).
With --start-ok N --state FILE the start-time modes (no-handshake, exit-at-start) spare the first
N starts (counted in FILE), so a bot can pass the arena's check before the first game and fail to
start later.
"""

import fcntl
import os
import subprocess
import sys
import time


def attack(args) -> None:
    """What a sandboxed bot must not be able to do, each tried once and its outcome reported."""
    import json
    import signal
    import socket

    def arg(name):
        return args[args.index(name) + 1]

    outcome = {}
    try:
        with open(arg("--target-file")) as f:
            # The last process started under that pid file (the game's, not the check's).
            target = int(f.read().splitlines()[-1].split()[0])
        os.kill(target, signal.SIGKILL)
        outcome["kill"] = "killed"
    except Exception as e:  # noqa: BLE001 - the outcome is the point
        outcome["kill"] = type(e).__name__
    try:
        with open(arg("--outside"), "w") as f:
            f.write("written from the sandbox\n")
        outcome["write"] = "written"
    except Exception as e:  # noqa: BLE001
        outcome["write"] = type(e).__name__
    try:
        socket.create_connection(("127.0.0.1", int(arg("--port"))), timeout=1).close()
        outcome["connect"] = "connected"
    except Exception as e:  # noqa: BLE001
        outcome["connect"] = type(e).__name__
    with open(arg("--report"), "w") as f:
        json.dump(outcome, f)


def escape(args) -> None:
    """What a sandbox must wall off besides the opponent, each tried once and reported."""
    import json
    import socket

    def arg(name, default=None):
        return args[args.index(name) + 1] if name in args else default

    outcome = {}
    try:
        tty = os.open("/dev/tty", os.O_RDWR)
        outcome["tty"] = "opened"
        if "--tty-inject" in args:
            import termios

            for byte in b"PWNED\n":
                fcntl.ioctl(tty, termios.TIOCSTI, bytes([byte]))
            outcome["tty"] = "injected"
        os.close(tty)
    except Exception as e:  # noqa: BLE001 - the outcome is the point
        outcome["tty"] = type(e).__name__
    if arg("--unix"):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(1)
            s.connect(arg("--unix"))
            s.close()
            outcome["unix"] = "connected"
        except Exception as e:  # noqa: BLE001
            outcome["unix"] = type(e).__name__
    try:
        outcome["run"] = len(os.listdir("/run"))
    except Exception as e:  # noqa: BLE001
        outcome["run"] = type(e).__name__
    tries = [("tmp", f"/tmp/arena-escape-{os.getpid()}")]
    if "--dev-write" in args:
        # Only where asked: outside a sandbox it would write into the host's /dev.
        tries.append(("dev", "/dev/arena-escape"))
    for key, path in tries:
        try:
            with open(path, "w") as f:
                f.write("written from the sandbox\n")
            os.unlink(path)
            outcome[key] = "written"
        except Exception as e:  # noqa: BLE001
            outcome[key] = type(e).__name__
    # MiB that went into /dev/shm before it refused (its own file, removed afterwards).
    shm = f"/dev/shm/arena-escape-{os.getpid()}"
    written = 0
    try:
        with open(shm, "wb") as f:
            block = b"s" * (1 << 20)
            for _ in range(int(arg("--shm-mib", "0"))):
                f.write(block)
                f.flush()
                written += 1
        outcome["shm"] = written
    except Exception as e:  # noqa: BLE001
        outcome["shm"] = f"{type(e).__name__} after {written}"
    try:
        os.unlink(shm)
    except OSError:
        pass
    if arg("--alloc-mib"):
        try:
            block = bytearray(int(arg("--alloc-mib")) << 20)
            block[-1] = 1
            outcome["alloc"] = "allocated"
            del block
        except MemoryError:
            outcome["alloc"] = "MemoryError"
    with open(arg("--report"), "w") as f:
        json.dump(outcome, f)


def exit_child_prints() -> None:
    """Exits at once, leaving a child in the process group that holds stdout and goes on
    printing: `info` lines without pause, and a `bestmove` after half a second."""
    if os.fork() == 0:
        start = time.monotonic()
        try:
            while time.monotonic() - start < 15:
                sys.stdout.write("info string still here\n" * 64)
                if time.monotonic() - start > 0.5:
                    sys.stdout.write("bestmove 1\n")
                sys.stdout.flush()
        finally:
            os._exit(0)
    os._exit(3)


def main() -> None:
    args = sys.argv[1:]
    child_cmd = []
    if "--" in args:
        i = args.index("--")
        args, child_cmd = args[:i], args[i + 1:]
    mode = args[0] if args else "crash-on-go"
    after = 0
    if "--after" in args:
        after = int(args[args.index("--after") + 1])

    if "--start-ok" in args:
        state = args[args.index("--state") + 1]
        # Read and count under a lock: the arena may start two of these at once (one per game
        # slot), and a start that read the file while the other truncated it saw 0 starts.
        with open(state, "a+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            f.seek(0)
            starts = int(f.read() or 0)
            f.seek(0)
            f.truncate()
            f.write(str(starts + 1))
        if starts < int(args[args.index("--start-ok") + 1]) and mode in ("no-handshake", "exit-at-start"):
            mode = "behave"

    if mode == "exit-at-start":
        sys.exit(1)

    if mode == "daemon":
        # Double fork: the grandchild leaves the process group and is re-parented away.
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                if "--pid-file" in args:
                    with open(args[args.index("--pid-file") + 1], "a") as f:
                        f.write(f"{os.getpid()}\n")
                os.closerange(0, 3)
                time.sleep(3600)
            os._exit(0)
        os.wait()

    child = None
    if child_cmd:
        child = subprocess.Popen(child_cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    if "--pid-file" in args:
        with open(args[args.index("--pid-file") + 1], "a") as f:
            f.write(f"{os.getpid()} {child.pid if child else ''}\n")

    out = sys.stdout
    if mode == "unflushed":
        # Block-buffered whatever PYTHONUNBUFFERED says, as Python's stdout is on a pipe.
        out = open(1, "w", buffering=65536, closefd=False)
    gos = 0
    newgames = 0

    def say(line: str) -> None:
        out.write(line + "\n")
        if mode != "unflushed":
            out.flush()

    def ask_child(line: str, until: str) -> None:
        """Forwards a line to the real bot and relays its answers up to the one starting `until`."""
        child.stdin.write(line + "\n")
        child.stdin.flush()
        if not until:
            return
        while True:
            answer = child.stdout.readline()
            if not answer:
                sys.exit(4)
            if mode == "double" and answer.startswith("bestmove"):
                out.write(answer + answer)
                out.flush()
            else:
                say(answer.rstrip("\n"))
            if answer.startswith(until):
                return

    for raw in sys.stdin:
        line = raw.strip()
        word = line.split(" ", 1)[0] if line else ""
        if word == "mancala":
            if mode == "no-handshake":
                say("id name never-ready")
                continue
            if mode == "bom":
                say("\ufeffmancalaok")
                continue
            if mode == "slow-handshake":
                time.sleep(5)
            if mode == "id-flood":
                name = "x" * 1024
                while True:
                    out.write("".join(f"id name {name}\n" for _ in range(256)))
                    out.flush()
            if child:
                ask_child(line, "mancalaok")
            else:
                say("id name misbehave")
                say("mancalaok")
        elif word == "isready":
            if "--ready-delay" in args and newgames > 0:
                time.sleep(int(args[args.index("--ready-delay") + 1]) / 1000)
            if child:
                ask_child(line, "readyok")
            elif mode == "stray":
                # One write, so that the stray line arrives with `readyok`, before the next
                # `go`: one that arrived after it could not be told from an answer.
                say("readyok\nbestmove 6")
            else:
                say("readyok")
        elif word == "go":
            gos += 1
            if "--delay" in args:
                time.sleep(int(args[args.index("--delay") + 1]) / 1000)
            if "--burn" in args:
                until = time.process_time() + int(args[args.index("--burn") + 1]) / 1000
                while time.process_time() < until:
                    pass
            if mode == "stray":
                continue
            if mode == "hostile" and gos == 1:
                attack(args)
            if mode == "escape" and gos == 1:
                escape(args)
            if gos > after:
                if mode == "flood-crash":
                    sys.stderr.write("e" * (9 << 20))
                    sys.stderr.flush()
                    sys.exit(3)
                if mode == "crash-keep-out":
                    subprocess.Popen(["sleep", "30"])
                    sys.exit(3)
                if mode == "crash-on-go":
                    sys.exit(3)
                if mode == "exit-child-prints":
                    exit_child_prints()
                if mode == "hang":
                    while True:
                        time.sleep(3600)
                if mode == "illegal":
                    say("bestmove 99")
                    continue
                if mode == "malformed":
                    say("bestmove banana")
                    continue
                if mode == "malformed-nul":
                    say("bestmove \x00")
                    continue
                if mode == "garbage":
                    out.buffer.write(b"\xff\xfe\x00garbage\xc3\x28\n")
                    out.buffer.flush()
                    while True:
                        time.sleep(3600)
                if mode == "endless-line":
                    chunk = "x" * 65536
                    while True:
                        out.write(chunk)
                if mode == "slow":
                    time.sleep(1.5)
            if child:
                ask_child(line, "bestmove")
            else:
                say("bestmove 1")

        elif word == "quit":
            if child:
                ask_child(line, "")
                child.wait(timeout=2)
            return
        else:
            if word == "newgame":
                newgames += 1
            if child:
                ask_child(line, "")


if __name__ == "__main__":
    main()
