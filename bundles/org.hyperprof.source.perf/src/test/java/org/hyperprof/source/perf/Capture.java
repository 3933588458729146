package org.hyperprof.source.perf;

import java.util.ArrayList;
import java.util.List;

/** Records what a reader hands on, one line per record, for tests. */
final class Capture implements PerfEvents {
    final List<String> lines = new ArrayList<>();
    RecordingInfo info;
    int headers;

    @Override
    public void header(RecordingInfo i) {
        info = i;
        headers++;
        lines.add("header");
    }

    @Override
    public void sample(PerfSample s) {
        StringBuilder b = new StringBuilder("sample ev" + s.attr.index + " mode" + s.cpumode + " ip=0x"
                + Long.toHexString(s.ip) + " pid=" + s.pid + " t=" + s.time + " cpu=" + s.cpu + " period=" + s.period);
        if (s.chainLength > 0) {
            b.append(" chain=");
            for (int i = 0; i < s.chainLength; i++) {
                b.append(i == 0 ? "" : ",").append(Long.toHexString(s.chain(i)));
            }
        }
        lines.add(b.toString());
    }

    @Override
    public void mmap(int cpumode, int pid, int tid, long start, long length, long pgoff, String filename,
            boolean data, String buildId) {
        lines.add("mmap pid=" + pid + " " + filename + " @0x" + Long.toHexString(start) + (buildId != null
                ? " build-id " + buildId : ""));
    }

    @Override
    public void comm(int pid, int tid, String comm, boolean exec) {
        lines.add("comm pid=" + pid + " " + comm);
    }

    @Override
    public void fork(int pid, int ppid, int tid, int ptid) {
        lines.add("fork " + pid + "<-" + ppid);
    }

    @Override
    public void exit(int pid, int ppid, int tid, int ptid) {
        lines.add("exit " + pid);
    }

    @Override
    public void roundFinished() {
        lines.add("round");
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
