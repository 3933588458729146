package org.hyperprof.web.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.testing.sample.TestBatches;
import org.hyperprof.testing.sample.TestDictionary;
import org.junit.jupiter.api.Test;

/** The live page's board: a session's progress and its first results, as they arrive. */
class LiveBoardTest {
    private final LiveBoard board = new LiveBoard();

    @Test
    void beforeAnySessionTheBoardIsIdle() {
        assertTrue(board.snapshot().startsWith("{\"version\":0,\"state\":\"idle\",\"progress\":{\"doneMicros\":0,"),
                board.snapshot());
    }

    @Test
    void theSymbolsWithTheMostSamplesSoFarComeFirstByNameWithTheirShareAndTheProgress() {
        TestDictionary names = new TestDictionary();
        int xen = names.image(0, "xen-syms", ImageKind.HYPERVISOR);
        int app = names.image(1, "/usr/bin/app", ImageKind.USER);
        int exit = names.symbol(xen, "vmx_exit");
        int xenOfDomU = names.image(1, "xen-syms", ImageKind.HYPERVISOR);
        int exitOfDomU = names.symbol(xenOfDomU, "vmx_exit");
        int main = names.symbol(app, "main");
        board.sessionStarted(new SessionInfo(5, "simulator", "xen-summit", "i386/p6", "PIII", 2800, List.of(),
                Map.of(0, "Domain-0"), true, names));
        TestBatches b = new TestBatches(5);
        for (int i = 0; i < 4; i++) {
            b.sample(1, 0, (byte) 0, 0, 0x400000L + i, app, main);
        }
        b.sample(0, 0, (byte) 2, 0, 0xff000L, xen, exit);
        b.sample(1, 0, (byte) 2, 0, 0xff000L, xenOfDomU, exitOfDomU);
        b.sample(1, 0, (byte) 0, 0, 0x1L, app, -1);
        long before = board.version();
        board.samples(b.build());
        board.progress(250_000, 1_000_000);
        assertTrue(board.version() > before, "a page is told something moved");
        String json = board.snapshot();
        assertTrue(json.contains("\"state\":\"running\",\"session\":{\"id\":\"5\",\"source\":\"simulator\","
                + "\"host\":\"xen-summit\",\"cpu\":\"PIII\",\"joinedLate\":false},\"progress\":{\"doneMicros\":250000,"
                + "\"totalMicros\":1000000,\"fraction\":0.25},\"samples\":7,\"top\":[{\"image\":\"/usr/bin/app\","
                + "\"symbol\":\"main\",\"samples\":4,\"share\":" + 4 / 7.0 + "},{\"image\":\"xen-syms\","
                + "\"symbol\":\"vmx_exit\",\"samples\":2,"), json);
        assertTrue(json.contains("{\"image\":\"/usr/bin/app\",\"symbol\":\"(no symbols)\",\"samples\":1,"), json);
        board.sessionEnded(new SessionSummary(5, new Accounting(8, 7, 1, 0, 0), List.of(), List.of(), null, null, 0,
                SessionSummary.COMPLETED));
        assertTrue(board.snapshot().contains("\"ended\":{\"reason\":\"completed\",\"taken\":8,\"delivered\":7,"
                + "\"lost\":1}"), board.snapshot());
        assertTrue(board.snapshot().contains("\"state\":\"ended\""));
    }

    @Test
    void batchesOfAnotherSessionAreNotCounted() {
        TestDictionary names = new TestDictionary();
        int app = names.image(1, "/usr/bin/app", ImageKind.USER);
        board.sessionStarted(new SessionInfo(5, "simulator", "h", "t", "c", 1, List.of(), Map.of(), false, names));
        board.samples(new TestBatches(6).sample(1, 0, (byte) 0, 0, 1L, app, -1).build());
        assertTrue(board.snapshot().contains("\"samples\":0,\"top\":[]"), board.snapshot());
    }

    @Test
    void aBoardThatStartsWatchingMidRunSaysSoAndKeepsTheRunsProgress() {
        board.progress(400_000, 1_000_000);
        board.joinedLate();
        board.sessionStarted(new SessionInfo(9, "simulator", "h", "t", "c", 1, List.of(), Map.of(), false,
                new TestDictionary()));
        String json = board.snapshot();
        assertTrue(json.contains("\"joinedLate\":true},\"progress\":{\"doneMicros\":400000,\"totalMicros\":1000000,"),
                json);
    }
}
