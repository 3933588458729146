package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.List;

import org.apache.felix.gogo.runtime.CommandProcessorImpl;
import org.apache.felix.gogo.runtime.threadio.ThreadIOImpl;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Job;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Gogo session that runs a thousand command lines keeps none of them once they are done: the
 * real Gogo runtime, with a console command that executes lines one by one as gosh's console does
 * (each line a child job of the console's job).
 */
class FinishedJobsTest {
    private static final int LINES = 1_000;

    private final ThreadIOImpl threadIO = new ThreadIOImpl();
    private CommandProcessorImpl processor;
    private CommandSession session;

    /** The commands of the test scope: a line to run, and a console that runs lines. */
    public static final class Commands {
        public void line() {
        }

        /** Runs {@code lines} command lines in this session, then says how many jobs its own job keeps. */
        public int console(CommandSession session, int lines) throws Exception {
            for (int i = 0; i < lines; i++) {
                session.execute("test:line");
            }
            List<?> kept = FinishedJobs.children(Job.Utils.current());
            assertNotNull(kept, "Gogo 1.1 keeps a job's children in a list: the test counts them there");
            return kept.size();
        }
    }

    @BeforeEach
    void gogo() {
        threadIO.start();
        processor = new CommandProcessorImpl(threadIO);
        processor.addCommand("test", new Commands());
        session = processor.createSession(new ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream(),
                new ByteArrayOutputStream());
    }

    @AfterEach
    void stop() {
        session.close();
        processor.stop();
        threadIO.stop();
    }

    @Test
    void aThousandCommandLinesLeaveNoJobBehind() throws Exception {
        // What the framework does with the component's service (Gogo's activator tracks CommandSessionListeners).
        processor.addListener(new FinishedJobs());
        assertEquals(0, session.execute("test:console " + LINES));
    }

    @Test
    void withoutItGogoKeepsEveryLinesJob() throws Exception {
        // The defect the listener removes, shown on the same runtime: one job kept per line, for good.
        assertEquals(LINES, session.execute("test:console " + LINES));
    }
}
