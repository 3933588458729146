package org.hyperprof.source.perf;

import java.nio.file.Path;

/**
 * Imports a recording (flat, perf report's defaults) and prints its flat profile as perf report
 * does; run by {@link PerfTool#javaIn} in another working directory.
 */
public final class ImportInWorkingDirectory {

    private ImportInWorkingDirectory() {
    }

    public static void main(String[] args) throws Exception {
        try (PerfDataReader reader = PerfDataReader.open(Path.of(args[0]))) {
            PerfImport.Result r = new PerfImport(Wiring.resolvers(), ImportOptions.defaults().withCallchains(false),
                    false).run(reader, null, "perf.data", null, false);
            StringBuilder out = new StringBuilder();
            r.report().printFlat(out, String.join(",", r.events()), Integer.MAX_VALUE);
            System.out.print(out);
        }
    }
}
