package org.hyperprof.api.store;

import java.util.List;

/**
 * The rows of a read-only query over the store ({@link SessionStore#query}), each value as text (null for
 * SQL's NULL).
 *
 * @param columns the result's column names
 * @param rows    the rows kept, each as many values as there are columns
 * @param leftOff how many more rows the query gave past the bound
 */
public record QueryRows(List<String> columns, List<List<String>> rows, long leftOff) {

    public QueryRows {
        columns = List.copyOf(columns);
        // Values may be null (SQL's NULL): copied without List.copyOf, which refuses nulls.
        rows = rows.stream().map(r -> java.util.Collections.unmodifiableList(new java.util.ArrayList<>(r))).toList();
    }
}
