package org.hyperprof.report.annotate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.report.kit.LongIntTable;
import org.hyperprof.report.kit.ReportAggregate;

/**
 * What annotation keeps of one session: the samples of its first counter by symbol, process and
 * program counter. The process is kept because the same image lies at other addresses in other
 * processes; the pc is placed in the image's file only when a function is annotated, through the
 * session's mappings.
 */
final class AddressCounts extends ReportAggregate {

    /** The samples of one symbol in one process: pc to count. */
    record Owner(int symbol, int domain, int pid) {
    }

    /** One sampled pc of a symbol, with its process. */
    record Hit(int domain, int pid, long pc, int samples) {
    }

    private final Map<Owner, LongIntTable> counts = new HashMap<>();
    /** The table of the last sample's owner: consecutive samples of one function cost no lookup. */
    private Owner lastOwner;
    private LongIntTable lastTable;
    /** Samples of the annotated counter, with or without a symbol. */
    private long counted;

    AddressCounts(SessionInfo info) {
        super(info, 1);
    }

    @Override
    protected void count(SampleBatch batch, int imageCount) {
        for (int i = 0; i < batch.size; i++) {
            if (!fits(batch, i, imageCount)) {
                reject(batch, i, imageCount);
                continue;
            }
            samples++;
            // Annotation is of one event: the session's first counter.
            if (counterSlot(batch, i) != 0) {
                continue;
            }
            counted++;
            int symbol = batch.symbol[i];
            long pc = batch.pc[i];
            if (symbol < 0 || pc < 0) {
                continue;
            }
            tableOf(symbol, batch.domain[i], batch.pid[i]).add(pc, 1);
        }
    }

    private LongIntTable tableOf(int symbol, int domain, int pid) {
        Owner last = lastOwner;
        if (last != null && last.symbol == symbol && last.domain == domain && last.pid == pid) {
            return lastTable;
        }
        Owner owner = new Owner(symbol, domain, pid);
        LongIntTable table = counts.computeIfAbsent(owner, o -> new LongIntTable(64));
        lastOwner = owner;
        lastTable = table;
        return table;
    }

    /** The session annotated. */
    SessionInfo info() {
        return info;
    }

    /** Samples of the annotated counter so far. */
    synchronized long counted() {
        return counted;
    }

    /** Every sampled pc of the given symbols (in domain {@code domain}, or any when negative), a copy. */
    synchronized List<Hit> hits(List<Integer> symbols, int domain) {
        List<Hit> hits = new ArrayList<>();
        for (Map.Entry<Owner, LongIntTable> e : counts.entrySet()) {
            Owner o = e.getKey();
            if (symbols.contains(o.symbol) && (domain < 0 || o.domain == domain)) {
                e.getValue().forEach((pc, n) -> hits.add(new Hit(o.domain, o.pid, pc, n)));
            }
        }
        return hits;
    }
}
