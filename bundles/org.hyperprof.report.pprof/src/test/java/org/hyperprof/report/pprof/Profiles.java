package org.hyperprof.report.pprof;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.output.OutputFilesComponent;
import org.hyperprof.report.pprof.proto.Function;
import org.hyperprof.report.pprof.proto.Label;
import org.hyperprof.report.pprof.proto.Location;
import org.hyperprof.report.pprof.proto.Profile;
import org.hyperprof.report.pprof.proto.Sample;

/** Reads written profiles back with protobuf-java and answers questions about them. */
final class Profiles {

    private Profiles() {
    }

    /** Writes a session to {@code file} as hp:export does: the writer's content, placed by OutputFiles. */
    static Path write(ReportFileWriter writer, ReportRequest request, String format, Path file)
            throws IOException, ReportException {
        return new OutputFilesComponent().write(file, writer.content(request, format)).file();
    }

    /** Parses a gzip-compressed profile.proto file. */
    static Profile read(Path file) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            return Profile.parseFrom(in);
        }
    }

    static String string(Profile p, long index) {
        return p.getStringTable((int) index);
    }

    /** The index of the sample type named {@code type}. */
    static int valueIndex(Profile p, String type) {
        for (int i = 0; i < p.getSampleTypeCount(); i++) {
            if (string(p, p.getSampleType(i).getType()).equals(type)) {
                return i;
            }
        }
        throw new AssertionError("no sample type " + type);
    }

    static long total(Profile p, String type) {
        int v = valueIndex(p, type);
        long t = 0;
        for (Sample s : p.getSampleList()) {
            t += s.getValue(v);
        }
        return t;
    }

    /** The function names of a sample's stack, leaf first. */
    static List<String> stack(Profile p, Sample s) {
        return new Names(p).stack(s);
    }

    /** Flat values of {@code type} per function name (the leaf's function), as pprof -top sums them. */
    static Map<String, Long> flat(Profile p, String type) {
        int v = valueIndex(p, type);
        Names names = new Names(p);
        Map<String, Long> flat = new TreeMap<>();
        for (Sample s : p.getSampleList()) {
            flat.merge(names.function(s.getLocationId(0)), s.getValue(v), Long::sum);
        }
        return flat;
    }

    /** Location id to function name, indexed once per profile. */
    private static final class Names {
        private final Profile p;
        private final Map<Long, Location> locations = new HashMap<>();
        private final Map<Long, Function> functions = new HashMap<>();

        Names(Profile p) {
            this.p = p;
            p.getLocationList().forEach(l -> locations.put(l.getId(), l));
            p.getFunctionList().forEach(f -> functions.put(f.getId(), f));
        }

        String function(long locationId) {
            return string(p, functions.get(locations.get(locationId).getLine(0).getFunctionId()).getName());
        }

        List<String> stack(Sample s) {
            return s.getLocationIdList().stream().map(this::function).toList();
        }
    }

    /** The sample's label {@code key} as text (its string or its number). */
    static String label(Profile p, Sample s, String key) {
        for (Label l : s.getLabelList()) {
            if (string(p, l.getKey()).equals(key)) {
                return l.getStr() != 0 ? string(p, l.getStr()) : Long.toString(l.getNum());
            }
        }
        return null;
    }

    /** Totals of {@code type} per value of label {@code key}. */
    static Map<String, Long> byLabel(Profile p, String type, String key) {
        int v = valueIndex(p, type);
        Map<String, Long> totals = new TreeMap<>();
        for (Sample s : p.getSampleList()) {
            totals.merge(label(p, s, key), s.getValue(v), Long::sum);
        }
        return totals;
    }

    static List<String> comments(Profile p) {
        return p.getCommentList().stream().map(i -> string(p, i)).toList();
    }
}
