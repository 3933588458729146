package org.hyperprof.report.opreport;

import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.testing.contract.ConsumerContract;

/** The opreport consumer keeps the consumer contract: its reports are the evidence. */
class OpreportContractTest extends ConsumerContract {
    @Override
    protected SampleConsumer newConsumer() {
        return new OpreportConsumer();
    }

    @Override
    protected String output(SampleConsumer consumer, long session) throws Exception {
        return rendered((OpreportConsumer) consumer, session);
    }
}
