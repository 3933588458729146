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
            w.name("session").beginObject().member("id", session.sessionId()).member("source", session.source())
                    .member("host", session.hostName()).member("cpu", session.cpuName())
                    .member("joinedLate", joinedLate).endObject();
        }
        w.name("progress").beginObject().member("doneMicros", doneMicros).member("totalMicros", totalMicros)
                .member("fraction", totalMicros <= 0 ? 0.0 : Math.min(1.0, (double) doneMicros / totalMicros))
                .endObject();
        w.member("samples", samples).name("top").beginArray();
        for (long[] row : top()) {
            int image = (int) (row[0] >> 32);
            int symbol = (int) row[0];
            SessionDictionary d = session.dictionary();
            w.beginObject().member("image", image >= 0 && image < d.imageCount() ? d.imageName(image) : "(no image)")
                    .member("symbol", symbol < 0 ? "(no symbols)" : d.briefName(symbol)).member("samples", row[1])
                    .member("share", (double) row[1] / samples).endObject();
        }
        w.endArray();
        if (ended != null) {
            w.name("ended").beginObject().member("reason", ended.endReason())
                    .member("taken", ended.accounting().taken()).member("delivered", ended.accounting().delivered())
                    .member("lost", ended.accounting().lost()).endObject();
        }
        return w.endObject().toString();
    }

    /** The {@value #TOP} (image, symbol) keys with the most samples, most first, ties by key: {key, samples}. */
    private List<long[]> top() {
        List<long[]> all = new ArrayList<>(counts.size());
        counts.forEach((k, v) -> all.add(new long[] {k, v[0]}));
        all.sort((a, b) -> a[1] != b[1] ? Long.compare(b[1], a[1]) : Long.compare(a[0], b[0]));
        return all.subList(0, Math.min(TOP, all.size()));
    }
}
