package org.hyperprof.launch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reports last: every layout and export of a session, asked for after the framework that made it
 * ended, is what it was while the session was live. A first launcher run profiles the default host
 * with call chains (and imports a perf.data recording made now, where perf is installed) and prints
 * and exports them; a second run, with the same store and nothing in memory, asks for the same by
 * {@code --session ID}: the store replays each session through the pipeline and the reports render
 * it. Text and flame graphs are compared byte for byte, pprof by content (its time stamp is the
 * replay's, its ids numbered in the order samples came).
 */
class ReplayIT {
    /** The report layouts compared: the flat one, the call graph, per instruction, per domain, separated, for scripts. */
    private static final List<String> LAYOUTS = List.of("", " callgraph", " details", " --domain 1",
            " symbols separate=lib,thread", " --format json");

    @TempDir
    Path dir;

    @Test
    void everyLayoutAndExportOfAStoredSessionAfterARestartIsWhatTheLiveSessionGave() throws Exception {
        Path config = Files.createDirectory(dir.resolve("config"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.writeString(config.resolve("org.hyperprof.store.cfg"), "path = " + dir.resolve("store.duckdb") + "\n");
        Map<String, String> env = Map.of("HYPERPROF_RESIDENT", "off", "HYPERPROF_CONFIG_DIR", config.toString());
        Path recording = record();

        List<String> live = new ArrayList<>();
        if (recording != null) {
            live.add("hp:import " + recording);
            live.add("hp:report callgraph");
        }
        live.add("hp:profile --ms 50 --callgraph 6 --no-report");
        live.addAll(reportsAndExports("", "live"));
        Run first = Run.of(LaunchMode.launcher(), dir, env, dir, live.toArray(String[]::new));
        assertEquals(0, first.status(), first.err());
        String simulated = id(first.out(), "(?m)^session (\\d+): samples taken");

        List<String> later = new ArrayList<>();
        String imported = null;
        if (recording != null) {
            imported = id(first.out(), "(?m)^Session (\\d+) fed \\d+ consumer");
            later.add("hp:report --session " + imported + " callgraph");
        }
        later.addAll(reportsAndExports(" --session " + simulated, "stored"));
        Run second = Run.of(LaunchMode.launcher(), dir, env, dir, later.toArray(String[]::new));
        assertEquals(0, second.status(), second.err());
        assertEquals("", second.err());

        List<String> liveLines = reportLines(first.out());
        List<String> storedLines = reportLines(second.out());
        int liveSimulated = liveLines.indexOf("CPU: PIII, speed 2800 MHz (estimated)");
        int storedSimulated = storedLines.indexOf("CPU: PIII, speed 2800 MHz (estimated)");
        assertTrue(storedSimulated >= 0, second.out());
        assertEquals(String.join("\n", liveLines.subList(liveSimulated, liveLines.size())),
                String.join("\n", storedLines.subList(storedSimulated, storedLines.size())));
        assertTrue(second.out().contains("consumer store: received"), "the live books, the store's too");
        if (imported != null) {
            // The import's own lines (perf report's view, its notes) come before; opreport's starts with its CPU.
            List<String> afterImport = liveLines.subList(indexOfPrefix(liveLines, "Session " + imported + " fed"),
                    liveLines.size());
            int report = indexOfPrefix(afterImport, "CPU: ");
            assertEquals(String.join("\n", afterImport.subList(report, indexOfPrefix(afterImport, "loaded "))),
                    String.join("\n", storedLines.subList(0, storedSimulated)));
        }
        for (String file : List.of("folded", "svg")) {
            assertArrayEquals(Files.readAllBytes(dir.resolve("live." + file)),
                    Files.readAllBytes(dir.resolve("stored." + file)), file);
        }
        assertEquals(Pprof.read(dir.resolve("live.pb.gz")), Pprof.read(dir.resolve("stored.pb.gz")));
    }

    private static List<String> reportsAndExports(String session, String name) {
        List<String> out = new ArrayList<>();
        for (String layout : LAYOUTS) {
            out.add("hp:report" + session + layout);
        }
        out.add("hp:export flamegraph folded " + name + ".folded" + session);
        out.add("hp:export flamegraph svg " + name + ".svg" + session);
        out.add("hp:export pprof pprof " + name + ".pb.gz" + session);
        return out;
    }

    /** The lines the commands printed, without the lines of the exports (which name the session and file). */
    private static List<String> reportLines(String out) {
        return out.lines().filter(l -> !l.startsWith("wrote ") && !l.startsWith("open it ")).toList();
    }

    private static int indexOfPrefix(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no line starts with '" + prefix + "' in\n" + String.join("\n", lines));
    }

    private static String id(String out, String regex) {
        Matcher m = Pattern.compile(regex).matcher(out);
        assertTrue(m.find(), out);
        return m.group(1);
    }

    /** A perf.data recording with call chains made now; null where perf is not installed or may not record. */
    private Path record() throws IOException, InterruptedException {
        if (!Files.isExecutable(Path.of("/usr/bin/perf"))) {
            return null;
        }
        Path data = dir.resolve("perf.data");
        Process p = new ProcessBuilder("/usr/bin/perf", "record", "-q", "-g", "-o", data.toString(), "--", "sh", "-c",
                "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done").redirectErrorStream(true)
                .redirectOutput(dir.resolve("perf.log").toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return null;
        }
        return p.exitValue() == 0 && Files.isRegularFile(data) ? data : null;
    }

    /**
     * A pprof profile as what it says, whatever order its ids were given in: each sample as its
     * stack of function names, values and labels; each mapping's file and range; the comments, the
     * sample types and the period. Its time stamp is left out (the replay's is its own). Read with a
     * reader of protobuf's wire format of the few fields profile.proto has.
     */
    record Pprof(List<String> samples, List<String> mappings, List<String> comments, List<String> header) {
        static Pprof read(Path file) throws IOException {
            byte[] bytes;
            try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
                bytes = in.readAllBytes();
            }
            List<String> strings = new ArrayList<>();
            List<byte[]> samples = new ArrayList<>();
            List<byte[]> locations = new ArrayList<>();
            List<byte[]> functions = new ArrayList<>();
            List<byte[]> mappings = new ArrayList<>();
            List<Long> commentIds = new ArrayList<>();
            List<String> header = new ArrayList<>();
            for (Field f : fields(bytes)) {
                switch (f.number) {
                    case 1 -> header.add("sample_type " + fields(f.bytes));
                    case 2 -> samples.add(f.bytes);
                    case 3 -> mappings.add(f.bytes);
                    case 4 -> locations.add(f.bytes);
                    case 5 -> functions.add(f.bytes);
                    case 6 -> strings.add(new String(f.bytes, StandardCharsets.UTF_8));
                    case 13 -> commentIds.add(f.value);
                    case 9 -> {
                        // time_nanos: the replay's own
                    }
                    default -> header.add(f.number + " " + (f.bytes == null ? f.value : fields(f.bytes)));
                }
            }
            Map<Long, String> functionNames = new HashMap<>();
            for (byte[] fn : functions) {
                Map<Integer, Long> v = values(fn);
                functionNames.put(v.get(1), strings.get(v.get(2).intValue()));
            }
            Map<Long, String> locationNames = new HashMap<>();
            for (byte[] loc : locations) {
                long id = 0;
                StringBuilder name = new StringBuilder();
                for (Field f : fields(loc)) {
                    if (f.number == 1) {
                        id = f.value;
                    } else if (f.number == 3) {
                        name.append("0x").append(Long.toHexString(f.value)).append(' ');
                    } else if (f.number == 4) {
                        name.append(functionNames.get(values(f.bytes).get(1)));
                    }
                }
                locationNames.put(id, name.toString());
            }
            List<String> sampleTexts = new ArrayList<>();
            for (byte[] s : samples) {
                StringBuilder text = new StringBuilder();
                for (Field f : fields(s)) {
                    if (f.number == 1) {
                        for (long loc : packed(f)) {
                            text.append(locationNames.get(loc)).append(" <- ");
                        }
                    } else if (f.number == 2) {
                        text.append(packed(f)).append(' ');
                    } else if (f.number == 3) {
                        Map<Integer, Long> label = values(f.bytes);
                        text.append(strings.get(label.get(1).intValue())).append('=')
                                .append(label.containsKey(2) ? strings.get(label.get(2).intValue()) : label.get(3))
                                .append(' ');
                    }
                }
                sampleTexts.add(text.toString());
            }
            List<String> mappingTexts = new ArrayList<>();
            for (byte[] m : mappings) {
                Map<Integer, Long> v = values(m);
                mappingTexts.add(strings.get(v.get(5).intValue()) + " " + v.get(2) + "-" + v.get(3));
            }
            sampleTexts.sort(null);
            mappingTexts.sort(null);
            return new Pprof(sampleTexts, mappingTexts, commentIds.stream().map(i -> strings.get(i.intValue())).toList(),
                    header);
        }

        /** One field: its number, and its value (varint, fixed) or its bytes (length-delimited). */
        record Field(int number, long value, byte[] bytes) {
            @Override
            public String toString() {
                return number + "=" + (bytes == null ? Long.toString(value) : bytes.length + " bytes");
            }
        }

        static List<Field> fields(byte[] message) {
            ByteBuffer b = ByteBuffer.wrap(message).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            List<Field> out = new ArrayList<>();
            while (b.hasRemaining()) {
                long key = varint(b);
                int number = (int) (key >>> 3);
                switch ((int) (key & 7)) {
                    case 0 -> out.add(new Field(number, varint(b), null));
                    case 1 -> out.add(new Field(number, b.getLong(), null));
                    case 2 -> {
                        byte[] bytes = new byte[(int) varint(b)];
                        b.get(bytes);
                        out.add(new Field(number, 0, bytes));
                    }
                    case 5 -> out.add(new Field(number, b.getInt(), null));
                    default -> throw new AssertionError("wire type " + (key & 7) + " in a pprof profile");
                }
            }
            return out;
        }

        /** A message's scalar fields by number (the last value of each). */
        static Map<Integer, Long> values(byte[] message) {
            Map<Integer, Long> out = new HashMap<>();
            for (Field f : fields(message)) {
                if (f.bytes == null) {
                    out.put(f.number, f.value);
                }
            }
            return out;
        }

        /** A repeated varint field, packed or not. */
        static List<Long> packed(Field f) {
            if (f.bytes == null) {
                return List.of(f.value);
            }
            ByteBuffer b = ByteBuffer.wrap(f.bytes);
            List<Long> out = new ArrayList<>();
            while (b.hasRemaining()) {
                out.add(varint(b));
            }
            return out;
        }

        static long varint(ByteBuffer b) {
            long v = 0;
            for (int shift = 0; ; shift += 7) {
                byte c = b.get();
                v |= (long) (c & 0x7F) << shift;
                if (c >= 0) {
                    return v;
                }
            }
        }
    }
}
