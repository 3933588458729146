package org.hyperprof.testing.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/** Every session a consumer was told about, by id, with copies of its batches and its summary. */
public final class Sessions implements SampleConsumer {
    public final Map<Long, SessionInfo> infos = new ConcurrentHashMap<>();
    public final Map<Long, List<SampleBatch>> batches = new ConcurrentHashMap<>();
    public final Map<Long, SessionSummary> summaries = new ConcurrentHashMap<>();
    public final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void sessionStarted(SessionInfo session) {
        infos.put(session.sessionId(), session);
        batches.put(session.sessionId(), new CopyOnWriteArrayList<>());
        events.add("started " + session.source());
    }

    @Override
    public void samples(SampleBatch batch) {
        batches.get(batch.sessionId).add(batch.copy());
    }

    @Override
    public void sessionEnded(SessionSummary summary) {
        summaries.put(summary.sessionId(), summary);
        events.add("ended " + infos.get(summary.sessionId()).source());
    }

    public SessionInfo bySource(String source) {
        return infos.values().stream().filter(i -> i.source().equals(source)).findFirst().orElseThrow();
    }

    /** Each sample as "domain vcpu mode counter pc image symbol" (callers left out). */
    public List<String> resolved(long session) {
        SessionDictionary d = infos.get(session).dictionary();
        List<String> out = new ArrayList<>();
        for (SampleBatch b : batches.get(session)) {
            for (int i = 0; i < b.size; i++) {
                out.add(b.domain[i] + " " + b.vcpu[i] + " " + b.mode[i] + " " + b.counter[i] + " 0x"
                        + Long.toHexString(b.pc[i]) + " " + d.imageName(b.image[i]) + " "
                        + d.symbolName(b.symbol[i]));
            }
        }
        return out;
    }
}
