package org.hyperprof.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hyperprof.testing.pprof.GoPprof;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * hp:diff agrees with pprof: two profiles of different lengths are stored and exported as pprof
 * files, and {@code go tool pprof -top -diff_base=A.pb.gz B.pb.gz} shows per function the same
 * change in samples as hp:diff's rows of those functions (pprof names a function by its symbol, or
 * {@code IMAGE (no symbols)}, and adds up the functions of one name across images and domains, so
 * hp:diff's rows are added up alike). Skipped where {@code go} is not installed.
 */
class DiffPprofIT {
    /** A -top row: flat flat% sum% cum cum% name; a diff's values may be negative. */
    private static final Pattern ROW = Pattern.compile(
            "^\\s*(-?\\d+)\\s+-?[\\d.]+%\\s+-?[\\d.]+%\\s+(-?\\d+)\\s+-?[\\d.]+%\\s+(.+)$");

    @TempDir
    Path dir;

    @Test
    void pprofsDiffOfTheTwoExportsShowsHpDiffsDeltasPerFunction() throws Exception {
        assumeTrue(GoPprof.available(), GoPprof.MISSING);
        Path config = Files.createDirectory(dir.resolve("config"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.writeString(config.resolve("org.hyperprof.store.cfg"), "path = " + dir.resolve("store.duckdb") + "\n");
        Map<String, String> env = Map.of("HYPERPROF_RESIDENT", "off", "HYPERPROF_CONFIG_DIR", config.toString());
        Path a = dir.resolve("a.pb.gz");
        Path b = dir.resolve("b.pb.gz");

        Run profiles = Run.of(LaunchMode.launcher(), dir, env, dir, "hp:profile --ms 100 --no-report",
                "hp:export pprof pprof " + a, "hp:profile --ms 300 --no-report", "hp:export pprof pprof " + b);
        assertEquals(0, profiles.status(), profiles.err());
        Matcher ids = Pattern.compile("(?m)^session (\\d+): samples taken").matcher(profiles.out());
        assertTrue(ids.find(), profiles.out());
        String baseline = ids.group(1);
        assertTrue(ids.find(), profiles.out());
        String compared = ids.group(1);

        Run diff = Run.of(LaunchMode.launcher(), dir, env, dir, "hp:diff " + baseline + " " + compared
                + " symbols top=1000000 --format csv");
        assertEquals(0, diff.status(), diff.err());
        Map<String, Long> ours = deltasByFunction(diff.out());
        Map<String, Long> pprof = flatByFunction(GoPprof.run(dir, "-top", "-nodecount=100000", "-nodefraction=0",
                "-edgefraction=0", "-sample_index=samples", "-diff_base=" + a, b.toString()));
        assertTrue(ours.size() > 10, "a profile of the default scenario has functions in both: " + ours);
        assertEquals(ours, pprof);
    }

    /** hp:diff's CSV rows added up per pprof function name: B's samples minus A's; changes of 0 left out. */
    private static Map<String, Long> deltasByFunction(String csv) {
        Map<String, Long> out = new TreeMap<>();
        List<String> lines = csv.lines().toList();
        assertEquals("baseline,delta,mark,ratio,rate_a,rate_delta,rate_ratio,samples_a,samples_b,domain,image,symbol",
                lines.get(0));
        for (String line : lines.subList(1, lines.size())) {
            List<String> cells = cells(line);
            String symbol = cells.get(11);
            String function = symbol.equals("(no symbols)") ? cells.get(10) + " (no symbols)" : symbol;
            out.merge(function, Long.parseLong(cells.get(8)) - Long.parseLong(cells.get(7)), Long::sum);
        }
        out.values().removeIf(v -> v == 0);
        return out;
    }

    /** The cells of a CSV line (RFC 4180 quotes). */
    private static List<String> cells(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted && c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                cell.append('"');
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString());
        return cells;
    }

    /** pprof -top's flat value per function; values of 0 left out. */
    private static Map<String, Long> flatByFunction(String top) {
        Map<String, Long> out = new TreeMap<>();
        boolean table = false;
        for (String line : top.split("\n")) {
            if (line.trim().startsWith("flat")) {
                table = true;
                continue;
            }
            Matcher row = ROW.matcher(line);
            if (table && row.matches() && Long.parseLong(row.group(1)) != 0) {
                out.merge(row.group(3).trim(), Long.parseLong(row.group(1)), Long::sum);
            }
        }
        assertTrue(table, () -> "no -top table in:\n" + top);
        return out;
    }
}
