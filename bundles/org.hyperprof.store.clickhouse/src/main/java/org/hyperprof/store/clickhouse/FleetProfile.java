package org.hyperprof.store.clickhouse;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.Writer;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

import org.hyperprof.api.output.Content;

/**
 * A fleet profile written for the tools that read profiles: pprof's profile.proto (gzipped), one sample
 * per (host, domain, mode, image, symbol) with the labels {@code host}, {@code domain} and {@code mode}, so
 * that {@code go tool pprof -tagfocus=host=...} slices it by host; or flamegraph.pl's folded stacks, the
 * host the root frame, then the domain, the image and the symbol.
 */
final class FleetProfile {
    private static final String[] MODES = {"user", "kernel", "hypervisor"};

    private FleetProfile() {
    }

    /** Folded stacks: {@code host;domain;image;symbol samples}, a ';' in a name written as ':'. */
    static Content folded(List<FleetQueries.ProfileRow> rows) {
        return out -> {
            Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
            for (FleetQueries.ProfileRow r : rows) {
                w.write(frame(r.host()) + ";" + frame(r.domain()) + ";" + frame(r.image()) + ";" + frame(r.symbol())
                        + " " + r.samples() + "\n");
            }
            w.flush();
        };
    }

    private static String frame(String name) {
        String n = name.isEmpty() ? "[unknown]" : name;
        return n.replace(';', ':').replace('\n', ' ');
    }

    static String mode(int mode) {
        return mode >= 0 && mode < MODES.length ? MODES[mode] : "unknown";
    }

    /** profile.proto (github.com/google/pprof/proto/profile.proto), gzipped, as pprof writes it. */
    static Content pprof(List<FleetQueries.ProfileRow> rows) {
        return out -> {
            Proto p = new Proto();
            Map<String, Long> strings = new HashMap<>();
            ByteArrayOutputStream table = new ByteArrayOutputStream();
            java.util.function.ToLongFunction<String> s = text -> strings.computeIfAbsent(text, t -> {
                Proto e = new Proto();
                e.bytes(6, t.getBytes(StandardCharsets.UTF_8));
                table.writeBytes(e.done());
                return (long) strings.size();
            });
            s.applyAsLong("");
            p.message(1, new Proto().varint(1, s.applyAsLong("samples")).varint(2, s.applyAsLong("count")));
            p.message(1, new Proto().varint(1, s.applyAsLong("events")).varint(2, s.applyAsLong("count")));
            Map<String, Long> functions = new HashMap<>();
            Proto defs = new Proto();
            for (FleetQueries.ProfileRow r : rows) {
                String key = r.image() + "\0" + r.symbol();
                Long id = functions.get(key);
                if (id == null) {
                    id = (long) functions.size() + 1;
                    functions.put(key, id);
                    String name = r.symbol().isEmpty() ? "[" + (r.image().isEmpty() ? "unknown" : r.image()) + "]"
                            : r.symbol();
                    defs.message(5, new Proto().varint(1, id).varint(2, s.applyAsLong(name))
                            .varint(3, s.applyAsLong(name)).varint(4, s.applyAsLong(r.image())));
                    defs.message(4, new Proto().varint(1, id).message(4, new Proto().varint(1, id)));
                }
                Proto sample = new Proto().packed(1, id).packed(2, r.samples(), r.weight());
                for (String[] label : new String[][] {{"host", r.host()}, {"domain", r.domain()},
                    {"mode", mode(r.mode())}}) {
                    sample.message(3, new Proto().varint(1, s.applyAsLong(label[0])).varint(2, s.applyAsLong(label[1])));
                }
                p.message(2, sample);
            }
            try (OutputStream z = new GZIPOutputStream(new NonClosing(out))) {
                z.write(p.done());
                z.write(defs.done());
                z.write(table.toByteArray());
            }
        };
    }

    /** protobuf's wire format, as much as profile.proto needs: varints, length-delimited fields. */
    private static final class Proto {
        private final ByteArrayOutputStream b = new ByteArrayOutputStream();

        Proto varint(int field, long v) {
            raw((long) field << 3);
            raw(v);
            return this;
        }

        Proto bytes(int field, byte[] v) {
            raw((long) field << 3 | 2);
            raw(v.length);
            b.writeBytes(v);
            return this;
        }

        Proto message(int field, Proto m) {
            return bytes(field, m.done());
        }

        Proto packed(int field, long... values) {
            Proto inner = new Proto();
            for (long v : values) {
                inner.raw(v);
            }
            return bytes(field, inner.done());
        }

        private void raw(long v) {
            while ((v & ~0x7FL) != 0) {
                b.write((int) ((v & 0x7F) | 0x80));
                v >>>= 7;
            }
            b.write((int) v);
        }

        byte[] done() {
            return b.toByteArray();
        }
    }

    /** Lets the gzip stream finish without closing the target: OutputFiles closes it. */
    private static final class NonClosing extends java.io.FilterOutputStream {
        NonClosing(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws java.io.IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws java.io.IOException {
            flush();
        }
    }
}
