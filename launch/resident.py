"""launch/hyperprof's client of the resident Hyperprof framework (python3, standard library only).

    resident.py run JAR KEEP_GOING JAVA_OPTS    runs the command lines on stdin in the resident
                                                framework, starting it first when none answers
    resident.py stop JAR                        stops the resident framework, if one runs

The framework listens on a Unix domain socket (mode 0600) in a folder of this user's with mode
0700: $HYPERPROF_RUN_DIR, else ${XDG_RUNTIME_DIR:-/tmp}/hyperprof-$UID; a folder owned by another
user or open to others is refused. Its own output goes to server.log there. The client sends its
working folder and the command lines, relays what the run prints to stdout and stderr, passes
Ctrl-C and SIGTERM on, and exits with the run's status. A server whose identity (the jar's size and
time, and the JVM options) is not this build's is told to stop, and a new one is started. The
frames are those of org.hyperprof.shell.ClientFrames: a type byte, a big-endian length, the bytes.
"""
import fcntl
import os
import signal
import socket
import stat
import struct
import subprocess
import sys
import time

START_GUARD_SECONDS = 120


def run_dir():
    d = os.environ.get("HYPERPROF_RUN_DIR")
    if not d:
        d = os.path.join(os.environ.get("XDG_RUNTIME_DIR") or "/tmp", "hyperprof-%d" % os.getuid())
    try:
        os.mkdir(d, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(d)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        sys.stderr.write("hyperprof: refusing the resident framework's folder %s: it must be a folder of yours"
                         " with mode 0700 (it is %s, owner %d, mode %04o); set HYPERPROF_RUN_DIR to another,"
                         " or HYPERPROF_RESIDENT=off\n" % (d, "a folder" if stat.S_ISDIR(st.st_mode) else "no folder",
                                                          st.st_uid, stat.S_IMODE(st.st_mode)))
        sys.exit(2)
    return d


def java_options(opts):
    """The JVM options: HYPERPROF_JAVA_OPTS split at spaces (as the shell splits it), and the
    configuration folder and the store's engine (DuckDB's jar, which launch/hyperprof found next to
    it) as one argument each, spaces and all."""
    args = opts.split()
    config = os.environ.get("HYPERPROF_CONFIG_DIR")
    if config:
        args.append("-Dhyperprof.config.dir=" + config)
    engine = os.environ.get("HYPERPROF_STORE_ENGINE")
    if engine:
        args.append("-Dhyperprof.store.engine=" + engine)
    return args


def identity(jar, opts):
    st = os.stat(jar)
    return "%d:%d %s" % (st.st_size, st.st_mtime_ns // 1000000, " ".join(java_options(opts)))


def send(conn, kind, body=b""):
    conn.sendall(struct.pack(">cI", kind, len(body)) + body)


def read_exact(conn, n):
    chunks = []
    while n > 0:
        b = conn.recv(min(n, 1 << 16))
        if not b:
            return None
        chunks.append(b)
        n -= len(b)
    return b"".join(chunks)


def read_frame(conn):
    head = read_exact(conn, 5)
    if head is None:
        return None, None
    kind, length = struct.unpack(">cI", head)
    body = read_exact(conn, length)
    if body is None:
        return None, None
    return kind, body


def connect(path):
    """A connection to the server answering at path with its identity, or (None, None)."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
        kind, body = read_frame(conn)
    except OSError:
        kind = None
    if kind != b"V":
        conn.close()
        return None, None
    return conn, body.decode("utf-8", "replace")


def stop(conn):
    """Tells the server to stop and waits until it has let go of its socket."""
    try:
        send(conn, b"X")
        while read_frame(conn)[0] is not None:
            pass
    except OSError:
        pass
    conn.close()


def server(d, jar, opts, want):
    """A connection to a server of this build, started when none answers."""
    path = os.path.join(d, "socket")
    conn, have = connect(path)
    if conn is not None and have == want:
        return conn
    with open(os.path.join(d, "start.lock"), "w") as lock:
        # One client starts the server; the others wait here and then find it.
        fcntl.flock(lock, fcntl.LOCK_EX)
        if conn is not None:
            conn.close()
        conn, have = connect(path)
        if conn is not None:
            if have == want:
                return conn
            stop(conn)
        log_path = os.path.join(d, "server.log")
        with open(log_path, "wb") as log:
            java = ["java"] + java_options(opts) + [
                "-Dhyperprof.shell.mode=resident",
                "-Dhyperprof.resident.socket=" + path,
                "-Dhyperprof.resident.jar=" + jar,
                "-Dhyperprof.resident.options=" + " ".join(java_options(opts)),
                "-Dhyperprof.resident.idle.seconds=" + os.environ.get("HYPERPROF_RESIDENT_IDLE", "900"),
                "-Dgosh.args=--nointeractive --noshutdown",
                "-jar", jar]
            # Its own session: a terminal's Ctrl-C reaches the client, which passes it on for its run only.
            proc = subprocess.Popen(java, stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=d,
                                    start_new_session=True)
        deadline = time.monotonic() + START_GUARD_SECONDS
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            conn, have = connect(path)
            if conn is not None:
                if have == want:
                    return conn
                # The server stopped above may still answer while it lets go of its socket: not ours.
                conn.close()
            time.sleep(0.01)
        with open(log_path, "rb") as log:
            tail = log.read()[-4000:].decode("utf-8", "replace")
        sys.stderr.write("hyperprof: the resident framework did not start (its log, %s, ends with:)\n%s\n"
                         "hyperprof: HYPERPROF_RESIDENT=off runs the command lines in a JVM of their own\n"
                         % (log_path, tail))
        sys.exit(1)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def run(jar, keep_going, opts):
    d = run_dir()
    lines = sys.stdin.buffer.read()
    interrupted = []

    def early(signum, frame):
        interrupted.append(signum)

    # A signal before the run begins ends the client at once; the server starts on regardless.
    signal.signal(signal.SIGINT, early)
    signal.signal(signal.SIGTERM, early)
    conn = server(d, jar, opts, identity(jar, opts))
    if interrupted:
        sys.exit(128 + interrupted[0])
    send(conn, b"D", os.getcwdb())
    # The caller's environment, for what the commands start (hp:record's perf and its workload).
    send(conn, b"N", b"\0".join(k + b"=" + v for k, v in os.environb.items()))
    send(conn, b"K", b"1" if keep_going == "true" else b"0")
    send(conn, b"L", lines)
    send(conn, b"G")

    def forward(signum, frame):
        try:
            send(conn, b"S", b"INT" if signum == signal.SIGINT else b"TERM")
        except OSError:
            pass

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)
    for signum in interrupted:
        forward(signum, None)
    out_open = True
    while True:
        kind, body = read_frame(conn)
        if kind is None:
            sys.stderr.write("hyperprof: the resident framework ended the run without an exit status; its log is %s\n"
                             % os.path.join(d, "server.log"))
            sys.exit(1)
        if kind == b"Q":
            sys.exit(int(body))
        fd = 1 if kind == b"O" else 2 if kind == b"E" else None
        if fd is None or (fd == 1 and not out_open):
            continue
        try:
            write_all(fd, body)
        except BrokenPipeError:
            # A reader that has had enough ('| head'): the run goes on, as it would in its own JVM.
            out_open = fd != 1


def main(argv):
    if len(argv) >= 3 and argv[1] == "stop":
        d = run_dir()
        conn, _ = connect(os.path.join(d, "socket"))
        if conn is not None:
            stop(conn)
        return 0
    if len(argv) == 5 and argv[1] == "run":
        run(argv[2], argv[3], argv[4])
    sys.stderr.write("usage: resident.py run JAR KEEP_GOING JAVA_OPTS | stop JAR\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
