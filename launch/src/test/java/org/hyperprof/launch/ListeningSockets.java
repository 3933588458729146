package org.hyperprof.launch;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * The TCP ports a process listens on, from /proc: its socket inodes (the links in /proc/PID/fd) matched
 * with the rows of /proc/net/tcp and tcp6 in state LISTEN (0A).
 */
final class ListeningSockets {
    private ListeningSockets() {
    }

    /** The ports the process or any process it started listens on. */
    static Set<Integer> of(long pid) throws IOException {
        Set<String> inodes = new HashSet<>();
        socketsOf(pid, inodes);
        for (ProcessHandle child : ProcessHandle.of(pid).map(p -> p.descendants().toList()).orElse(java.util.List.of())) {
            socketsOf(child.pid(), inodes);
        }
        return listening(inodes);
    }

    private static void socketsOf(long pid, Set<String> inodes) throws IOException {
        Path dir = Path.of("/proc", Long.toString(pid), "fd");
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(dir)) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException gone) {
                    // closed while listed
                }
            }
        }
    }

    private static Set<Integer> listening(Set<String> inodes) throws IOException {
        Set<Integer> ports = new TreeSet<>();
        for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            for (String line : Files.readAllLines(Path.of(table))) {
                String[] f = line.strip().split("\\s+");
                if (f.length > 9 && f[3].equals("0A") && inodes.contains(f[9])) {
                    String local = f[1];
                    ports.add(Integer.parseInt(local.substring(local.lastIndexOf(':') + 1), 16));
                }
            }
        }
        return ports;
    }
}
