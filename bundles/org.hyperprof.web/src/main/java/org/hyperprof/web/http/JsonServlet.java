package org.hyperprof.web.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * A read-only JSON endpoint: the query parsed by {@link Params}, a bad parameter answered with 400 and
 * its message, any other failure with 500 and one line (never a stack trace).
 */
public abstract class JsonServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    /** One route's answer: what it writes for these parameters. */
    @FunctionalInterface
    public interface Answer {
        void write(Params params, Json json) throws Exception;
    }

    /** Writes the answer for these parameters. */
    protected abstract void answer(Params params, Json json) throws Exception;

    /** The answer to this servlet path (the pattern the servlet was asked by): its one answer by default. */
    Answer route(String servletPath) throws NotFound {
        return this::answer;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Json json = new Json();
        int status = HttpServletResponse.SC_OK;
        try {
            route(request.getServletPath()).write(Params.parse(request.getQueryString()), json);
        } catch (BadParameter e) {
            status = HttpServletResponse.SC_BAD_REQUEST;
            json = error(e.getMessage());
        } catch (NotFound e) {
            status = HttpServletResponse.SC_NOT_FOUND;
            json = error(e.getMessage());
        } catch (Exception e) {
            status = HttpServletResponse.SC_INTERNAL_SERVER_ERROR;
            json = error(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        }
        byte[] body = json.toString().getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType("application/json;charset=utf-8");
        response.setHeader("Cache-Control", "no-store");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    private static Json error(String message) {
        return new Json().beginObject().member("error", message).endObject();
    }

    /** What was asked for does not exist (a session id no store holds): 404. */
    public static final class NotFound extends Exception {
        private static final long serialVersionUID = 1L;

        public NotFound(String message) {
            super(message);
        }
    }
}
