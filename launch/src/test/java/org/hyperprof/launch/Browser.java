package org.hyperprof.launch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A web view browser script (launch/src/test/e2e/*.mjs: playwright-core driving Debian's chromium) run
 * with node; its verdict is the one JSON line it prints. The scripts' packages are installed by the
 * build ({@code npm ci} before the integration tests).
 */
final class Browser {
    static final Path E2E = Path.of(System.getProperty("hyperprof.e2e", "src/test/e2e")).toAbsolutePath();
    private static final long GUARD_SECONDS = 150;

    private Browser() {
    }

    /** Runs {@code node <script> args...}; returns its verdict line; fails with its output when it fails. */
    static String run(String script, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("node", script));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(E2E.toFile()).redirectErrorStream(false).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(GUARD_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(script + " did not end in " + GUARD_SECONDS + " s");
        }
        String verdict = new String(out, StandardCharsets.UTF_8).strip();
        if (p.exitValue() != 0 || verdict.isEmpty()) {
            throw new AssertionError(script + " failed (" + p.exitValue() + "): " + verdict + "\n" + err);
        }
        return verdict;
    }

    /** A number member of the verdict. */
    static double number(String json, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\":(-?[0-9.eE+-]+)").matcher(json);
        if (!m.find()) {
            throw new AssertionError("no number '" + name + "' in " + json);
        }
        return Double.parseDouble(m.group(1));
    }
}
