package org.hyperprof.report.pprof;

import java.io.ByteArrayOutputStream;
import java.util.Base64;
import java.util.Set;

import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.testing.contract.ConsumerContract;

/** The pprof consumer keeps the consumer contract: the profile it writes is the evidence. */
class PprofContractTest extends ConsumerContract {
    @Override
    protected SampleConsumer newConsumer() {
        // A fixed clock: the profile's time_nanos would otherwise differ between two consumers.
        return new PprofConsumer(PprofConsumer.DEFAULT_RETAINED_SESSIONS, PprofConsumer.DEFAULT_EXACT_LOCATIONS,
                PprofConsumer.DEFAULT_STACKS, () -> 1_700_000_000_000L);
    }

    @Override
    protected String output(SampleConsumer consumer, long session) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ((PprofConsumer) consumer).content(new ReportRequest(session, ReportRequest.ALL_DOMAINS, Set.of()),
                PprofConsumer.NAME).writeTo(out);
        return Base64.getEncoder().encodeToString(out.toByteArray());
    }
}
