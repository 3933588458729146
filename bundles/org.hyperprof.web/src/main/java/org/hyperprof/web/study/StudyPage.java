package org.hyperprof.web.study;

import org.hyperprof.api.study.StudyResults;
import org.hyperprof.web.pages.PageServlet;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/** {@code /study}: the last study's chart and table, intervals included. Present only with the study bundle. */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/study",
    Whiteboard.CONTEXT_SELECT, Whiteboard.PAGE_TITLE + "=Study", Whiteboard.PAGE_PATH + "=/study",
    Whiteboard.PAGE_ORDER + ":Integer=60"})
public final class StudyPage extends PageServlet {
    private static final long serialVersionUID = 1L;

    @Activate
    public StudyPage(@Reference(name = "study") StudyResults results) {
        super("/study", "/pages/study.html");
    }
}
