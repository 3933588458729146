package org.hyperprof.web.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hyperprof.web.server.Gatekeeper.Decision;
import org.junit.jupiter.api.Test;

/**
 * Who may read the view: the Host header must name this server (DNS rebinding sends the attacker's
 * name), and the token must come in the address or in this port's cookie.
 */
class GatekeeperTest {
    private static final AccessToken TOKEN = AccessToken.of("0123456789abcdef-token");
    private static final Gatekeeper GATE = new Gatekeeper(new Serving("127.0.0.1", 8123, HostCheck.loopback(8123), TOKEN));

    @Test
    void theTokenInTheAddressLetsInAndSetsTheCookie() {
        assertEquals(Decision.ALLOW_AND_SET_COOKIE, GATE.decide("127.0.0.1:8123", TOKEN.value(), null));
        assertEquals("hyperprof-8123=0123456789abcdef-token; Path=/; HttpOnly; SameSite=Strict", GATE.cookie());
        assertEquals(Decision.ALLOW, GATE.decide("localhost:8123", null, TOKEN.value()));
    }

    @Test
    void noTokenOrAnotherIsRefused() {
        assertEquals(Decision.NO_TOKEN, GATE.decide("127.0.0.1:8123", null, null));
        assertEquals(Decision.NO_TOKEN, GATE.decide("127.0.0.1:8123", "0123456789abcdef-tokeN", null));
        assertEquals(Decision.NO_TOKEN, GATE.decide("127.0.0.1:8123", "", "x"));
    }

    @Test
    void aRequestNamingAnotherHostIsRefusedEvenWithTheToken() {
        assertEquals(Decision.WRONG_HOST, GATE.decide("attacker.example:8123", TOKEN.value(), TOKEN.value()));
        assertEquals(Decision.WRONG_HOST, GATE.decide("127.0.0.1:8124", TOKEN.value(), null));
        assertEquals(Decision.WRONG_HOST, GATE.decide(null, TOKEN.value(), null));
        assertEquals(Decision.WRONG_HOST, GATE.decide("127.0.0.1", TOKEN.value(), null), "the port is part of the name");
    }

    @Test
    void listeningElsewhereAddsThatAddressOnly() {
        HostCheck hosts = HostCheck.listening(9000, "192.0.2.7");
        assertTrue(hosts.allows("192.0.2.7:9000"));
        assertTrue(hosts.allows("LOCALHOST:9000"));
        assertFalse(hosts.allows("192.0.2.8:9000"));
        assertTrue(HostCheck.listening(9000, "::1").allows("[::1]:9000"));
        HostCheck wildcard = HostCheck.everyLocalAddress(9000, "0.0.0.0");
        assertTrue(wildcard.allows("127.0.0.1:9000"), "every interface's address, loopback's too");
        assertFalse(wildcard.allows("attacker.example:9000"));
    }

    @Test
    void twoServersHaveCookiesOfTheirOwnAndRandomTokens() {
        assertNotEquals(Gatekeeper.cookieName(8123), Gatekeeper.cookieName(8124));
        assertNotEquals(AccessToken.random().value(), AccessToken.random().value());
        assertTrue(AccessToken.random().value().length() >= 43, "256 bits");
    }

    @Test
    void everyAnswerForbidsInlineScriptAndJsonIsNotCached() {
        assertTrue(SecurityHeaders.CSP.contains("script-src 'self'"));
        assertFalse(SecurityHeaders.CSP.contains("unsafe-inline"));
        assertEquals("no-store", SecurityHeaders.forPath("/api/flame").get("Cache-Control"));
        assertEquals(SecurityHeaders.CSP, SecurityHeaders.forPath("/static/hp.js").get("Content-Security-Policy"));
    }
}
