package org.hyperprof.api.profiler;

/**
 * The outcome of one opcontrol step in one domain.
 *
 * @param ok     whether every hypercall it made succeeded
 * @param output what opcontrol prints, and on a misstep: the state, what was expected, and the
 *               next step with the domain that must take it
 */
public record OpcontrolResult(boolean ok, String output) {
}
