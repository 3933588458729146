package org.hyperprof.report.flamegraph;

import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.testing.contract.ConsumerContract;

/** The flame graph consumer keeps the consumer contract: its folded stacks are the evidence. */
class FlameGraphContractTest extends ConsumerContract {
    @Override
    protected SampleConsumer newConsumer() {
        return new FlameGraphConsumer();
    }

    @Override
    protected String output(SampleConsumer consumer, long session) throws Exception {
        return rendered((FlameGraphConsumer) consumer, session);
    }
}
