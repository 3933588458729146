package org.hyperprof.profiler;

/**
 * What the host or Xenoprof says of one domain where the profiler only needs a best answer (a
 * check, a note, which buffers to drain): a domain it cannot say anything of (no answer, or a
 * failure) gets the caller's default. Asks through a method reference, so no call allocates.
 */
final class DomainAnswers {

    /** One question about a domain, e.g. {@code Host::domainState}. */
    @FunctionalInterface
    interface Question<S, T> {
        T ask(S source, int domid);
    }

    private DomainAnswers() {
    }

    static <S, T> T ask(S source, int domid, Question<S, T> question, T otherwise) {
        try {
            T answer = question.ask(source, domid);
            return answer == null ? otherwise : answer;
        } catch (RuntimeException e) {
            return otherwise;
        }
    }
}
