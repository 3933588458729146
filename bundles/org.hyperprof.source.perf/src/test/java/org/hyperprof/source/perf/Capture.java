package org.hyperprof.source.perf;

import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Records what a reader hands on, one line per record, for tests. */
final class Capture implements PerfEvents {
    final List<String> lines = new ArrayList<>();

    /** What a reader of recording {@code file} hands on. */
    static Capture of(Path file) throws PerfDataException {
        Capture c = new Capture();
        try (PerfDataReader r = PerfDataReader.open(file)) {
            r.read(c);
        }
        return c;
    }

    /** What a reader of the pipe-mode recording {@code bytes} hands on. */
    static Capture ofPipe(byte[] bytes) throws PerfDataException {
        Capture c = new Capture();
        try (PerfDataReader r = PerfDataReader.open(new ByteArrayInputStream(bytes), "<pipe>")) {
            r.read(c);
        }
        return c;
    }
    RecordingInfo info;
    int headers;
    int batches;

    @Override
    public RecordBatch take() {
        return null;
    }

    @Override
    public boolean eachRound() {
        return false;
    }

    @Override
    public void handOver(RecordBatch b) {
        batches++;
        DecodedSamples d = b.columns;
        for (int k = 0; k < b.ordered; k++) {
            int r = b.order[k];
            switch (b.kind[r]) {
                case RecordBatch.SAMPLE -> lines.add(sample(d, b.chains(), r));
                case RecordBatch.HEADER -> {
                    info = (RecordingInfo) b.event[r];
                    headers++;
                    lines.add("header");
                }
                case RecordBatch.MMAP -> {
                    RecordBatch.Mmap m = (RecordBatch.Mmap) b.event[r];
                    lines.add("mmap pid=" + m.pid() + " " + m.filename() + " @0x" + Long.toHexString(m.start())
                            + (m.buildId() != null ? " build-id " + m.buildId() : ""));
                }
                case RecordBatch.COMM -> {
                    RecordBatch.Comm c = (RecordBatch.Comm) b.event[r];
                    lines.add("comm pid=" + c.pid() + " " + c.comm());
                }
                case RecordBatch.FORK -> {
                    RecordBatch.Task t = (RecordBatch.Task) b.event[r];
                    lines.add("fork " + t.pid() + "<-" + t.ppid());
                }
                case RecordBatch.EXIT -> lines.add("exit " + ((RecordBatch.Task) b.event[r]).pid());
                case RecordBatch.ROUND -> lines.add("round");
                default -> throw new AssertionError("entry of kind " + b.kind[r] + " handed on");
            }
        }
    }

    private static String sample(DecodedSamples d, java.nio.ByteBuffer chains, int r) {
        StringBuilder b = new StringBuilder("sample ev" + d.attr[r].index + " mode" + d.cpumode[r] + " ip=0x"
                + Long.toHexString(d.ip[r]) + " pid=" + d.pid[r] + " t=" + d.time[r] + " cpu=" + d.cpu[r]
                + " period=" + d.period[r]);
        if (d.chainLength[r] > 0) {
            b.append(" chain=");
            for (int i = 0; i < d.chainLength[r]; i++) {
                b.append(i == 0 ? "" : ",").append(Long.toHexString(chains.getLong(d.chainAt[r] + 8 * i)));
            }
        }
        return b.toString();
    }

    /** The sample lines only. */
    List<String> samples() {
        List<String> out = new ArrayList<>();
        for (String l : lines) {
            if (l.startsWith("sample")) {
                out.add(l);
            }
        }
        return out;
    }
}
