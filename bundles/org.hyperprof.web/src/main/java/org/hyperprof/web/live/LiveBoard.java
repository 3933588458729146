package org.hyperprof.web.live;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.web.http.Json;

/**
 * What the live page shows of the profile running now: the session, how far the run has come, and its symbols
 * with the most samples so far. It is a sample consumer (registered only while a live page watches, so it costs
 * nothing otherwise) and hears the run's progress; a snapshot is taken as JSON whenever the page is sent one.
 * Samples are counted from when it started watching: a page opened mid-run says so.
 */
public final class LiveBoard implements SampleConsumer {
    /** Its {@code consumer.name}. */
    public static final String NAME = "web-live";
    /** Rows of the top list a snapshot carries. */
    public static final int TOP = 15;

    private SessionInfo session;
    private boolean joinedLate;
    /** The next session started before the board watched. */
    private boolean lateNext;
    /** Samples per (image, symbol) of the session, the key {@code image << 32 | symbol}. */
    private final Map<Long, long[]> counts = new HashMap<>();
    private long samples;
    private SessionSummary ended;
    private long doneMicros;
    private long totalMicros;
    /** Bumped by every change: a page is sent a snapshot only when it moved. */
    private long version;

    @Override
    public synchronized void sessionStarted(SessionInfo info) {
        session = info;
        joinedLate = lateNext;
        lateNext = false;
        counts.clear();
        samples = 0;
        ended = null;
        if (doneMicros >= totalMicros) {
            // the last run's progress; this run's may have come first (it is heard on the run's thread)
            doneMicros = 0;
            totalMicros = 0;
        }
        version++;
    }

    /** Starts watching while a run goes on: its session's samples before now are not counted. */
    public synchronized void joinedLate() {
        lateNext = true;
    }

    @Override
    public synchronized void samples(SampleBatch batch) {
        if (session == null || batch.sessionId != session.sessionId()) {
            return;
        }
        for (int i = 0; i < batch.size; i++) {
            long key = (long) batch.image[i] << 32 | (batch.symbol[i] & 0xFFFFFFFFL);
            counts.computeIfAbsent(key, k -> new long[1])[0]++;
        }
        samples += batch.size;
        version++;
    }

    @Override
    public synchronized void sessionEnded(SessionSummary summary) {
        if (session != null && summary.sessionId() == session.sessionId()) {
            ended = summary;
            version++;
        }
    }

    /** The run's progress, as a profile watcher hears it. */
    public synchronized void progress(long done, long total) {
        doneMicros = done;
        totalMicros = total;
        version++;
    }

    public synchronized long version() {
        return version;
    }

    /** The board now, as the live page's JSON. */
    public synchronized String snapshot() {
        Json w = new Json().beginObject().member("version", version)
                .member("state", session == null ? "idle" : ended == null ? "running" : "ended");
        if (session != null) {
            w.name("session").beginObject().member("id", String.valueOf(session.sessionId())).member("source", session.source())
                    .member("host", session.hostName()).member("cpu", session.cpuName())
                    .member("joinedLate", joinedLate).endObject();
        }
        w.name("progress").beginObject().member("doneMicros", doneMicros).member("totalMicros", totalMicros)
                .member("fraction", totalMicros <= 0 ? 0.0 : Math.min(1.0, (double) doneMicros / totalMicros))
                .endObject();
        w.member("samples", samples).name("top").beginArray();
        for (Map.Entry<String[], Long> row : top()) {
            w.beginObject().member("image", row.getKey()[0]).member("symbol", row.getKey()[1])
                    .member("samples", row.getValue()).member("share", (double) row.getValue() / samples).endObject();
        }
        w.endArray();
        if (ended != null) {
            w.name("ended").beginObject().member("reason", ended.endReason())
                    .member("taken", ended.accounting().taken()).member("delivered", ended.accounting().delivered())
                    .member("lost", ended.accounting().lost()).endObject();
        }
        return w.endObject().toString();
    }

    /**
     * The {@value #TOP} (image, symbol) names with the most samples, most first, ties by name: samples are
     * counted by the session's ids, and an image of one name has an id per domain (each domain resolves its own).
     */
    private List<Map.Entry<String[], Long>> top() {
        SessionDictionary d = session == null ? null : session.dictionary();
        Map<String, Long> byName = new HashMap<>();
        counts.forEach((k, v) -> {
            int image = (int) (k >> 32);
            int symbol = (int) (long) k;
            String name = (image >= 0 && image < d.imageCount() ? d.imageName(image) : "(no image)") + "\0"
                    + (symbol < 0 ? "(no symbols)" : d.briefName(symbol));
            byName.merge(name, v[0], Long::sum);
        });
        List<Map.Entry<String[], Long>> all = new ArrayList<>(byName.size());
        byName.forEach((k, v) -> all.add(Map.entry(k.split("\0", 2), v)));
        all.sort((a, b) -> !a.getValue().equals(b.getValue()) ? Long.compare(b.getValue(), a.getValue())
                : (a.getKey()[0] + "\0" + a.getKey()[1]).compareTo(b.getKey()[0] + "\0" + b.getKey()[1]));
        return all.subList(0, Math.min(TOP, all.size()));
    }
}
