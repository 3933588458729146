package org.hyperprof.report.opreport;

import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.testing.contract.ConsumerContract;

/** The opreport consumer keeps the consumer contract: its reports, read as the contract reads a renderer. */
class OpreportContractTest extends ConsumerContract {
    @Override
    protected SampleConsumer newConsumer() {
        return new OpreportConsumer();
    }
}
