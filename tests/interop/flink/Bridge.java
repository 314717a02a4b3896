// Compiled by tests/interop/flink/harness.py with javac against the Flink jars; runs in the
// worker's JVM. Turns a TableResult into lossless JSON text, so that no value passes through
// PyFlink's row conversion (which drops nanoseconds and fails on some nested values).
//
// Values: null, true/false, integers as JSON numbers, strings as JSON strings, and tagged arrays
// for everything else: ["double", Double.toString], ["decimal", plain text], ["binary", hex],
// ["date", ISO], ["time", HH:mm:ss.nnnnnnnnn], ["timestamp", ISO with 9 fraction digits; an Instant
// in UTC], ["row", [fields]], ["map", [[k, v], ...]], ["array", [elements]] and
// ["other", class, toString]: every JSON array is a tag, so a value never looks like another.
package paimonsql.flink;

import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

public final class Bridge {
    private static final DateTimeFormatter TS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS");
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSSSSS");

    private Bridge() {}

    /**
     * Makes every StreamExecutionEnvironment.getExecutionEnvironment() of this JVM submit to the
     * MiniCluster at host:port. Paimon's procedures (CALL sys.compact ...) build their jobs that
     * way, and would otherwise start a cluster of their own per call.
     */
    public static void useCluster(String host, int port) {
        ContextEnvironment.install(host, port);
    }

    private abstract static class ContextEnvironment extends StreamExecutionEnvironment {
        static void install(String host, int port) {
            initializeContextEnvironment(
                    conf -> {
                        Configuration remote = new Configuration();
                        remote.addAll(conf);
                        remote.set(DeploymentOptions.TARGET, "remote");
                        remote.set(RestOptions.ADDRESS, host);
                        remote.set(RestOptions.PORT, port);
                        return new StreamExecutionEnvironment(remote);
                    });
        }
    }

    /** Runs one statement (its job to the end), returns {"columns", "types", "rows"}. */
    public static String run(TableEnvironment env, String statement) throws Exception {
        // No result.await(): DML waits itself (table.dml-sync), and a query's collect() blocks
        // until rows come. await() polls isFirstRowReady() and was seen to hang after a job ended.
        TableResult result = env.executeSql(statement);
        StringBuilder out = new StringBuilder("{\"columns\":[");
        List<String> names = result.getResolvedSchema().getColumnNames();
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) out.append(',');
            string(out, names.get(i));
        }
        out.append("],\"types\":[");
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) out.append(',');
            string(out, result.getResolvedSchema().getColumnDataTypes().get(i).toString());
        }
        out.append("],\"rows\":[");
        boolean first = true;
        try (CloseableIterator<Row> rows = result.collect()) {
            while (rows.hasNext()) {
                Row row = rows.next();
                if (!first) out.append(',');
                first = false;
                out.append('[');
                for (int i = 0; i < row.getArity(); i++) {
                    if (i > 0) out.append(',');
                    value(out, row.getField(i));
                }
                out.append(']');
            }
        }
        return out.append("]}").toString();
    }

    private static void tagged(StringBuilder out, String tag, String text) {
        out.append("[\"").append(tag).append("\",");
        string(out, text);
        out.append(']');
    }

    private static void value(StringBuilder out, Object v) {
        if (v == null) {
            out.append("null");
        } else if (v instanceof Boolean || v instanceof Byte || v instanceof Short
                || v instanceof Integer || v instanceof Long) {
            out.append(v.toString());
        } else if (v instanceof Float) {
            tagged(out, "double", Double.toString(((Float) v).doubleValue()));
        } else if (v instanceof Double) {
            tagged(out, "double", v.toString());
        } else if (v instanceof BigDecimal) {
            tagged(out, "decimal", ((BigDecimal) v).toPlainString());
        } else if (v instanceof String) {
            string(out, (String) v);
        } else if (v instanceof byte[]) {
            StringBuilder hex = new StringBuilder();
            for (byte b : (byte[]) v) hex.append(String.format("%02x", b & 0xff));
            tagged(out, "binary", hex.toString());
        } else if (v instanceof LocalDate) {
            tagged(out, "date", v.toString());
        } else if (v instanceof LocalTime) {
            tagged(out, "time", TIME.format((LocalTime) v));
        } else if (v instanceof LocalDateTime) {
            tagged(out, "timestamp", TS.format((LocalDateTime) v));
        } else if (v instanceof Instant) {
            tagged(out, "timestamp", TS.format(LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC)));
        } else if (v instanceof Row) {
            Row row = (Row) v;
            out.append("[\"row\",[");
            for (int i = 0; i < row.getArity(); i++) {
                if (i > 0) out.append(',');
                value(out, row.getField(i));
            }
            out.append("]]");
        } else if (v instanceof Map) {
            out.append("[\"map\",[");
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) out.append(',');
                first = false;
                out.append('[');
                value(out, e.getKey());
                out.append(',');
                value(out, e.getValue());
                out.append(']');
            }
            out.append("]]");
        } else if (v.getClass().isArray()) {
            out.append("[\"array\",[");
            for (int i = 0; i < Array.getLength(v); i++) {
                if (i > 0) out.append(',');
                value(out, Array.get(v, i));
            }
            out.append("]]");
        } else {
            out.append("[\"other\",");
            string(out, v.getClass().getName());
            out.append(',');
            string(out, v.toString());
            out.append(']');
        }
    }

    /** A JSON string, ASCII only (every other char as a \\u escape; Python rejoins surrogates). */
    private static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
