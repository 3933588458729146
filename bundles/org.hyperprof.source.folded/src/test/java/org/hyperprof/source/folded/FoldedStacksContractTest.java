package org.hyperprof.source.folded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.hyperprof.api.source.SampleSource;
import org.hyperprof.testing.contract.SourceContract;

/** The folded-stacks source keeps the source contract. */
class FoldedStacksContractTest extends SourceContract {
    @Override
    protected SampleSource newSource() {
        return new FoldedStacks();
    }

    @Override
    protected Path fileWithSamples(Path dir) throws IOException {
        return Files.writeString(dir.resolve("web.folded"), "nginx;ngx_process_events;epoll_wait_[k] 3\n"
                + "nginx;ngx_http_handler;libc.so`memcpy 2\nnginx 1\n");
    }

    @Override
    protected byte[] notTheFormat() {
        return "{\"traceEvents\": [{\"ph\": \"X\"}]}\n".getBytes(StandardCharsets.UTF_8);
    }
}
