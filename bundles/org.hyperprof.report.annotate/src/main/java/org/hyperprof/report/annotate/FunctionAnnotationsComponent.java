package org.hyperprof.report.annotate;

import java.util.Set;

import org.hyperprof.api.report.AnnotatedFunction;
import org.hyperprof.api.report.FunctionAnnotations;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.command.kit.SessionStores;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/** {@code hp:annotate}'s answer as a service ({@link FunctionAnnotations}): the same consumer, the same replay. */
@Component(service = FunctionAnnotations.class)
public final class FunctionAnnotationsComponent implements FunctionAnnotations {
    private final AnnotateConsumer annotate;

    /** Where sessions the consumer no longer keeps are replayed from; optional. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile SessionStore store;

    @Activate
    public FunctionAnnotationsComponent(@Reference(name = "consumer") AnnotateConsumer annotate) {
        this.annotate = annotate;
    }

    @Override
    public AnnotatedFunction annotate(long session, String symbol, String image, int domain, boolean source)
            throws ReportException {
        if (symbol == null || symbol.isBlank()) {
            throw new ReportException("name the function to annotate (its name as the reports print it)");
        }
        try {
            SessionStores.replayIfMissing(store, session, annotate::sessions);
        } catch (StoreException e) {
            throw new ReportException(e.getMessage());
        }
        return of(annotate.annotation(new ReportRequest(session, domain, Set.of()), symbol, image, source));
    }

    static AnnotatedFunction of(Annotation a) {
        return new AnnotatedFunction(a.sessionId(), a.event(), a.symbol(), a.image(), a.function().start(),
                a.function().end(), a.samples(), a.sessionSamples(), a.outside(), a.lines().stream()
                        .map(r -> new AnnotatedFunction.Line(r.address(), r.text(), r.isInstruction() ? r.samples()
                                : 0)).toList(), a.notes());
    }
}
