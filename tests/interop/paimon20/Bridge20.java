package paimonsql;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.append.dataevolution.DataEvolutionCompactCoordinator;
import org.apache.paimon.append.dataevolution.DataEvolutionCompactTask;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Blob;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.data.variant.GenericVariant;
import org.apache.paimon.data.variant.Variant;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.globalindex.GlobalIndexBuilderUtils;
import org.apache.paimon.globalindex.GlobalIndexSingletonWriter;
import org.apache.paimon.globalindex.IndexedSplit;
import org.apache.paimon.globalindex.btree.BTreeGlobalIndexBuilder;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.utils.Range;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A JSON-lines driver of Apache Paimon's Java API (catalog, batch write and read builders) for the
 * paimon-sql tests. One request per stdin line, one answer per stdout line:
 *
 * <ul>
 *   <li>{"op":"create","warehouse","table","fields":[{"name","type"}],"partition_keys",
 *       "primary_keys","options"}: types in the JSON form of Paimon's schema files (a string
 *       such as "TIMESTAMP(9)" or an object for ROW/ARRAY/MAP)</li>
 *   <li>{"op":"write","warehouse","table","rows":[[...]],"kinds":["+I"|"-U"|"+U"|"-D"],
 *       "overwrite":{partition}|null, "compact": bool}</li>
 *   <li>{"op":"read","warehouse","table","snapshot","tag"}: {"columns","types","rows"} in the
 *       tagged JSON of the Flink bridge (nanoseconds kept)</li>
 *   <li>{"op":"snapshots","warehouse","table"}: [{"id","kind","schema"}]</li>
 *   <li>{"op":"version"}: Paimon's implementation version of the core jar</li>
 *   <li>write's "first_row_id": the new files placed at that row id (a data-evolution update of
 *       the columns written); {"op":"compact_data_evolution"}: Java's data-evolution compaction</li>
 *   <li>{"op":"create_global_index","column","index_type":"bitmap"|"btree"}: Java 1.4's global
 *       index over the whole table, built as Spark's create_global_index procedure builds it
 *       (bitmap: one file per partition and row-id shard, GlobalIndexBuilderUtils; btree:
 *       BTreeGlobalIndexBuilder), committed as one snapshot; answers the number of index files</li>
 *   <li>{"op":"truncate"}: BatchTableCommit.truncateTable (what Spark's TRUNCATE TABLE runs)</li>
 *   <li>read's "filter": {"column","equal": value} or {"column","is_null": true}: the rows of a
 *       filtered scan (a data-evolution table's scan answers through its global index) and
 *       "indexed": whether the plan's splits came from a global index (IndexedSplit)</li>
 *   <li>every table request may name a "database" (default "db")</li>
 *   <li>BINARY, VARBINARY and BLOB values are hex strings (a BLOB may also be {"local": path});
 *       a BLOB reads as its bytes</li>
 * </ul>
 */
public final class Bridge20 {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter TS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSS");
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSSSSS");
    private static final Map<String, Catalog> CATALOGS = new HashMap<>();
    private static final IOManager IO = IOManager.create(System.getProperty("java.io.tmpdir"));
    private static final String COMMIT_USER = UUID.randomUUID().toString();

    private Bridge20() {}

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        // Paimon and Hadoop log to stdout through log4j/slf4j fallbacks: keep stdout for answers.
        System.setOut(System.err);
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out.println("{\"ok\":true}");
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) continue;
            String answer;
            try {
                answer = handle(JSON.readTree(line));
            } catch (Throwable e) {
                StringWriter trace = new StringWriter();
                e.printStackTrace(new PrintWriter(trace));
                StringBuilder b = new StringBuilder("{\"ok\":false,\"error\":");
                string(b, trace.toString());
                answer = b.append('}').toString();
            }
            out.println(answer);
        }
        for (Catalog c : CATALOGS.values()) c.close();
    }

    private static String handle(JsonNode req) throws Exception {
        String op = req.get("op").asText();
        if (op.equals("version")) {
            StringBuilder b = new StringBuilder("{\"ok\":true,\"version\":");
            string(b, String.valueOf(Catalog.class.getPackage().getImplementationVersion()));
            b.append(",\"core\":");
            string(b, String.valueOf(Snapshot.class.getPackage().getImplementationVersion()));
            return b.append('}').toString();
        }
        Catalog catalog = catalog(req.get("warehouse").asText());
        // the database defaults to "db"; a table name may carry a branch ("t$branch_b")
        String database = req.hasNonNull("database") ? req.get("database").asText() : "db";
        Identifier id = Identifier.create(database, req.get("table").asText());
        switch (op) {
            case "create":
                create(catalog, id, req);
                return "{\"ok\":true}";
            case "write":
                write(catalog, id, req);
                return "{\"ok\":true}";
            case "compact_data_evolution":
                return "{\"ok\":true,\"tasks\":" + compactDataEvolution(catalog, id) + "}";
            case "read":
                return "{\"ok\":true,\"result\":" + read(catalog, id, req) + "}";
            case "snapshots":
                return "{\"ok\":true,\"snapshots\":" + snapshots(catalog, id) + "}";
            case "alter":
                alter(catalog, id, req.get("changes"));
                return "{\"ok\":true}";
            case "truncate":
                try (BatchTableCommit commit =
                        ((FileStoreTable) catalog.getTable(id)).newBatchWriteBuilder().newCommit()) {
                    commit.truncateTable();
                }
                return "{\"ok\":true}";
            case "create_global_index":
                return "{\"ok\":true,\"files\":" + createGlobalIndex(catalog, id, req) + "}";
            case "tag":
                ((FileStoreTable) catalog.getTable(id))
                        .createTag(req.get("tag").asText(), req.get("snapshot").asLong());
                return "{\"ok\":true}";
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    private static Catalog catalog(String warehouse) throws Exception {
        Catalog c = CATALOGS.get(warehouse);
        if (c == null) {
            Options options = new Options();
            options.set("warehouse", warehouse);
            options.set("cache-enabled", "false");
            c = CatalogFactory.createCatalog(CatalogContext.create(options));
            c.createDatabase("db", true);
            CATALOGS.put(warehouse, c);
        }
        return c;
    }

    private static List<String> strings(JsonNode node) {
        List<String> out = new ArrayList<>();
        if (node != null) node.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static void create(Catalog catalog, Identifier id, JsonNode req) throws Exception {
        Schema.Builder schema = Schema.newBuilder();
        for (JsonNode f : req.get("fields")) {
            schema.column(f.get("name").asText(), type(f.get("type")));
        }
        schema.partitionKeys(strings(req.get("partition_keys")));
        schema.primaryKey(strings(req.get("primary_keys")));
        JsonNode options = req.get("options");
        if (options != null) {
            Iterator<Map.Entry<String, JsonNode>> it = options.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                schema.option(e.getKey(), e.getValue().asText());
            }
        }
        catalog.createTable(id, schema.build(), false);
    }

    private static DataType type(JsonNode t) {
        return t.isTextual()
                ? DataTypeJsonParser.parseAtomicTypeSQLString(t.asText())
                : DataTypeJsonParser.parseDataType(t);
    }

    /** [{"add": name, "type": t} | {"rename": [old, new]} | {"drop": name} |
     *  {"retype": name, "type": t} | {"set": key, "value": v}], one schema change. */
    private static void alter(Catalog catalog, Identifier id, JsonNode changes) throws Exception {
        List<SchemaChange> out = new ArrayList<>();
        for (JsonNode c : changes) {
            if (c.has("add")) {
                out.add(SchemaChange.addColumn(c.get("add").asText(), type(c.get("type"))));
            } else if (c.has("rename")) {
                out.add(SchemaChange.renameColumn(
                        c.get("rename").get(0).asText(), c.get("rename").get(1).asText()));
            } else if (c.has("drop")) {
                out.add(SchemaChange.dropColumn(c.get("drop").asText()));
            } else if (c.has("retype")) {
                out.add(SchemaChange.updateColumnType(c.get("retype").asText(), type(c.get("type"))));
            } else if (c.has("set")) {
                out.add(SchemaChange.setOption(c.get("set").asText(), c.get("value").asText()));
            } else {
                throw new IllegalArgumentException("unknown schema change " + c);
            }
        }
        catalog.alterTable(id, out, false);
    }

    private static void write(Catalog catalog, Identifier id, JsonNode req) throws Exception {
        FileStoreTable table = (FileStoreTable) catalog.getTable(id);
        RowType rowType = table.rowType();
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        JsonNode overwrite = req.get("overwrite");
        if (overwrite != null && !overwrite.isNull()) {
            Map<String, String> partition = new LinkedHashMap<>();
            overwrite.fields().forEachRemaining(e -> partition.put(e.getKey(), e.getValue().asText()));
            builder = builder.withOverwrite(partition);
        }
        boolean dynamic = table.bucketMode() == BucketMode.HASH_DYNAMIC;
        HashBucketAssigner assigner = null;
        RowKeyExtractor keys = null;
        if (dynamic) {
            CoreOptions core = table.coreOptions();
            assigner =
                    new HashBucketAssigner(
                            table.snapshotManager(),
                            COMMIT_USER,
                            table.store().newIndexFileHandler(),
                            1,
                            1,
                            0,
                            core.dynamicBucketTargetRowNum(),
                            core.dynamicBucketMaxBuckets());
            keys = table.createRowKeyExtractor();
        }
        JsonNode kinds = req.get("kinds");
        try (TableWriteImpl<?> write = (TableWriteImpl<?>) builder.newWrite()) {
            // lookup (first-row, DV, lookup changelog) spills to local disk
            write.withIOManager(IO);
            JsonNode writeCols = req.get("write_cols");
            if (writeCols != null && !writeCols.isNull()) {
                // a partial-column write (data evolution): rows hold only these columns
                rowType = rowType.project(strings(writeCols));
                write.withWriteType(rowType);
            }
            int i = 0;
            for (JsonNode values : req.get("rows")) {
                GenericRow row = row(rowType, values);
                if (kinds != null && !kinds.isNull()) {
                    row.setRowKind(RowKind.fromShortString(kinds.get(i).asText()));
                }
                i++;
                if (dynamic) {
                    keys.setRecord(row);
                    BinaryRow partition = keys.partition();
                    write.write(row, assigner.assign(partition, keys.trimmedPrimaryKey().hashCode()));
                } else {
                    write.write(row);
                }
            }
            JsonNode compact = req.get("compact");
            if (compact != null && compact.asBoolean()) {
                for (Split split : table.newReadBuilder().newScan().plan().splits()) {
                    org.apache.paimon.table.source.DataSplit ds =
                            (org.apache.paimon.table.source.DataSplit) split;
                    write.compact(ds.partition(), ds.bucket(), true);
                }
            }
            List<CommitMessage> messages = write.prepareCommit();
            JsonNode firstRowId = req.get("first_row_id");
            if (firstRowId != null && !firstRowId.isNull()) {
                messages = atRowIds(messages, firstRowId.asLong());
            }
            try (BatchTableCommit commit = builder.newCommit()) {
                commit.commit(messages);
            }
        }
    }

    /**
     * The new files of `messages` placed at row ids from `start` (rewriting the columns they hold
     * of rows already written, as a data-evolution MERGE does): normal files one after another,
     * the .blob files of each BLOB column from the start of the normal file before them, the way
     * Java's RowTrackingCommitUtils assigns fresh files.
     */
    private static List<CommitMessage> atRowIds(List<CommitMessage> messages, long start) {
        List<CommitMessage> out = new ArrayList<>();
        long next = start;
        for (CommitMessage m : messages) {
            CommitMessageImpl c = (CommitMessageImpl) m;
            List<DataFileMeta> files = new ArrayList<>();
            long blobDefault = next;
            Map<String, Long> blobStarts = new HashMap<>();
            for (DataFileMeta f : c.newFilesIncrement().newFiles()) {
                if (f.fileName().endsWith(".blob")) {
                    String column = f.writeCols().get(0);
                    long at = blobStarts.getOrDefault(column, blobDefault);
                    files.add(f.assignFirstRowId(at));
                    blobStarts.put(column, at + f.rowCount());
                } else {
                    files.add(f.assignFirstRowId(next));
                    blobDefault = next;
                    blobStarts.clear();
                    next += f.rowCount();
                }
            }
            DataIncrement d = c.newFilesIncrement();
            out.add(
                    new CommitMessageImpl(
                            c.partition(),
                            c.bucket(),
                            c.totalBuckets(),
                            new DataIncrement(files, d.deletedFiles(), d.changelogFiles()),
                            c.compactIncrement()));
        }
        return out;
    }

    /** Java 1.4's data-evolution compaction (normal files of adjacent row-id ranges into one). */
    private static int compactDataEvolution(Catalog catalog, Identifier id) throws Exception {
        FileStoreTable table = (FileStoreTable) catalog.getTable(id);
        String user = UUID.randomUUID().toString();
        List<CommitMessage> messages = new ArrayList<>();
        for (DataEvolutionCompactTask task :
                new DataEvolutionCompactCoordinator(table, false, false).plan()) {
            messages.add(task.doCompact(table, user));
        }
        if (!messages.isEmpty()) {
            try (BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
                commit.commit(messages);
            }
        }
        return messages.size();
    }

    /**
     * Java 1.4's global index on one column of a row-tracking table, built the way Spark's
     * create_global_index procedure builds it, committed as one snapshot: the number of files.
     */
    private static int createGlobalIndex(Catalog catalog, Identifier id, JsonNode req)
            throws Exception {
        FileStoreTable table = (FileStoreTable) catalog.getTable(id);
        String column = req.get("column").asText();
        String indexType = req.get("index_type").asText();
        List<CommitMessage> messages = new ArrayList<>();
        if (indexType.equals("btree")) {
            BTreeGlobalIndexBuilder builder =
                    new BTreeGlobalIndexBuilder(table).withIndexField(column);
            for (DataSplit split : builder.scan().get().getRight()) {
                messages.addAll(builder.build(split, IO));
            }
        } else {
            DataField field = table.rowType().getField(column);
            RowType readType =
                    SpecialFields.rowTypeWithRowId(
                            table.rowType().project(java.util.Collections.singletonList(column)));
            Options options = table.coreOptions().toConfiguration();
            long perShard = options.get(CoreOptions.GLOBAL_INDEX_ROW_COUNT_PER_SHARD);
            Map<BinaryRow, List<DataFileMeta>> byPartition = new LinkedHashMap<>();
            for (ManifestEntry e : table.store().newScan().plan().files()) {
                if (e.file().firstRowId() != null) {
                    byPartition.computeIfAbsent(e.partition(), k -> new ArrayList<>()).add(e.file());
                }
            }
            for (Map.Entry<BinaryRow, List<DataFileMeta>> part : byPartition.entrySet()) {
                // shards of `perShard` row ids; within one, runs of adjacent or overlapping files
                Map<Long, List<DataFileMeta>> shards = new java.util.TreeMap<>();
                for (DataFileMeta f : part.getValue()) {
                    Range r = f.nonNullRowIdRange();
                    for (long s = r.from / perShard; s <= r.to / perShard; s++) {
                        shards.computeIfAbsent(s * perShard, k -> new ArrayList<>()).add(f);
                    }
                }
                for (Map.Entry<Long, List<DataFileMeta>> shard : shards.entrySet()) {
                    List<DataFileMeta> files = shard.getValue();
                    files.sort(java.util.Comparator.comparingLong(DataFileMeta::nonNullFirstRowId));
                    List<DataFileMeta> run = new ArrayList<>();
                    long runEnd = -1;
                    for (DataFileMeta f : files) {
                        if (!run.isEmpty() && f.nonNullFirstRowId() > runEnd + 1) {
                            messages.add(
                                    bitmapShard(table, part.getKey(), run, shard.getKey(),
                                            perShard, field, readType, indexType, options));
                            run = new ArrayList<>();
                            runEnd = -1;
                        }
                        run.add(f);
                        runEnd = Math.max(runEnd, f.nonNullRowIdRange().to);
                    }
                    messages.add(
                            bitmapShard(table, part.getKey(), run, shard.getKey(), perShard,
                                    field, readType, indexType, options));
                }
            }
        }
        int files = 0;
        for (CommitMessage m : messages) {
            files += ((CommitMessageImpl) m).newFilesIncrement().newIndexFiles().size();
        }
        try (TableCommitImpl commit =
                table.newCommit("global-index-" + indexType + "-create-" + UUID.randomUUID())) {
            commit.commit(messages);
        }
        return files;
    }

    private static CommitMessage bitmapShard(
            FileStoreTable table,
            BinaryRow partition,
            List<DataFileMeta> files,
            long shardStart,
            long perShard,
            DataField field,
            RowType readType,
            String indexType,
            Options options)
            throws Exception {
        long from = files.get(0).nonNullFirstRowId();
        long to = Long.MIN_VALUE;
        for (DataFileMeta f : files) to = Math.max(to, f.nonNullRowIdRange().to);
        Range range = new Range(Math.max(from, shardStart), Math.min(to, shardStart + perShard - 1));
        DataSplit split =
                DataSplit.builder()
                        .withPartition(partition)
                        .withBucket(0)
                        .withDataFiles(files)
                        .withBucketPath(
                                table.store().pathFactory().bucketPath(partition, 0).toString())
                        .rawConvertible(false)
                        .build();
        IndexedSplit indexed = new IndexedSplit(split, java.util.Collections.singletonList(range), null);
        GlobalIndexSingletonWriter writer =
                (GlobalIndexSingletonWriter)
                        GlobalIndexBuilderUtils.createIndexWriter(table, indexType, field, options);
        InternalRow.FieldGetter getter = InternalRow.createFieldGetter(field.type(), 0);
        try (RecordReader<InternalRow> reader =
                table.newReadBuilder().withReadType(readType).newRead().createReader(indexed)) {
            reader.forEachRemaining(r -> writer.write(getter.getFieldOrNull(r)));
        }
        List<IndexFileMeta> metas =
                GlobalIndexBuilderUtils.toIndexFileMetas(
                        table.fileIO(),
                        table.store().pathFactory().globalIndexFileFactory(),
                        table.coreOptions(),
                        range,
                        field.id(),
                        indexType,
                        writer.finish());
        return new CommitMessageImpl(
                partition, 0, null, DataIncrement.indexIncrement(metas),
                CompactIncrement.emptyIncrement());
    }

    private static String read(Catalog catalog, Identifier id, JsonNode req) throws Exception {
        Table table = catalog.getTable(id);
        Map<String, String> dynamic = new HashMap<>();
        if (req.hasNonNull("snapshot")) dynamic.put("scan.snapshot-id", req.get("snapshot").asText());
        if (req.hasNonNull("tag")) dynamic.put("scan.tag-name", req.get("tag").asText());
        if (!dynamic.isEmpty()) table = table.copy(dynamic);
        RowType rowType = table.rowType();
        ReadBuilder rb = table.newReadBuilder();
        JsonNode filter = req.get("filter");
        if (filter != null && !filter.isNull()) {
            PredicateBuilder pb = new PredicateBuilder(rowType);
            int at = rowType.getFieldIndex(filter.get("column").asText());
            rb.withFilter(
                    filter.hasNonNull("is_null")
                            ? pb.isNull(at)
                            : pb.equal(at, internal(rowType.getTypeAt(at), filter.get("equal"))));
        }
        List<Split> splits = rb.newScan().plan().splits();
        boolean indexed = !splits.isEmpty();
        for (Split s : splits) indexed &= s instanceof IndexedSplit;
        StringBuilder out = new StringBuilder("{\"indexed\":" + indexed + ",\"columns\":[");
        List<DataField> fields = rowType.getFields();
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) out.append(',');
            string(out, fields.get(i).name());
        }
        out.append("],\"types\":[");
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) out.append(',');
            string(out, fields.get(i).type().toString());
        }
        out.append("],\"rows\":[");
        boolean[] first = {true};
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
            reader.forEachRemaining(
                    r -> {
                        if (!first[0]) out.append(',');
                        first[0] = false;
                        rowValue(out, r, rowType);
                    });
        }
        return out.append("]}").toString();
    }

    private static String snapshots(Catalog catalog, Identifier id) throws Exception {
        FileStoreTable table = (FileStoreTable) catalog.getTable(id);
        StringBuilder out = new StringBuilder("[");
        Iterator<Snapshot> it = table.snapshotManager().snapshots();
        boolean first = true;
        while (it.hasNext()) {
            Snapshot s = it.next();
            if (!first) out.append(',');
            first = false;
            out.append("{\"id\":").append(s.id()).append(",\"kind\":");
            string(out, s.commitKind().name());
            out.append(",\"schema\":").append(s.schemaId()).append('}');
        }
        return out.append(']').toString();
    }

    // --- JSON values to Paimon's internal data ------------------------------------------------

    private static GenericRow row(RowType type, JsonNode values) {
        GenericRow row = new GenericRow(type.getFieldCount());
        for (int i = 0; i < type.getFieldCount(); i++) {
            row.setField(i, internal(type.getTypeAt(i), values.get(i)));
        }
        return row;
    }

    private static Object internal(DataType type, JsonNode v) {
        if (v == null || v.isNull()) return null;
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return v.asBoolean();
            case TINYINT:
                return (byte) v.asInt();
            case SMALLINT:
                return (short) v.asInt();
            case INTEGER:
                return v.asInt();
            case BIGINT:
                return v.asLong();
            case FLOAT:
                return v.isTextual() ? Float.parseFloat(v.asText()) : (float) v.asDouble();
            case DOUBLE:
                return v.isTextual() ? Double.parseDouble(v.asText()) : v.asDouble();
            case DECIMAL:
                DecimalType d = (DecimalType) type;
                return Decimal.fromBigDecimal(
                        new BigDecimal(v.asText()), d.getPrecision(), d.getScale());
            case CHAR:
            case VARCHAR:
                return BinaryString.fromString(v.asText());
            case BINARY:
            case VARBINARY:
                return hex(v.asText());
            case BLOB:
                // {"local": path}: a reference to a local file (what descriptor fields store)
                return v.isObject()
                        ? Blob.fromLocal(v.get("local").asText())
                        : Blob.fromData(hex(v.asText()));
            case DATE:
                return (int) LocalDate.parse(v.asText()).toEpochDay();
            case TIME_WITHOUT_TIME_ZONE:
                return (int) (LocalTime.parse(v.asText()).toNanoOfDay() / 1_000_000L);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return Timestamp.fromLocalDateTime(LocalDateTime.parse(v.asText()));
            case ARRAY:
                DataType element = ((ArrayType) type).getElementType();
                Object[] items = new Object[v.size()];
                for (int i = 0; i < items.length; i++) items[i] = internal(element, v.get(i));
                return new GenericArray(items);
            case MAP:
            case MULTISET:
                DataType kt =
                        type instanceof MapType
                                ? ((MapType) type).getKeyType()
                                : ((MultisetType) type).getElementType();
                DataType vt =
                        type instanceof MapType
                                ? ((MapType) type).getValueType()
                                : new org.apache.paimon.types.IntType();
                Map<Object, Object> map = new LinkedHashMap<>();
                for (JsonNode pair : v) map.put(internal(kt, pair.get(0)), internal(vt, pair.get(1)));
                return new GenericMap(map);
            case ROW:
                return row((RowType) type, v);
            case VARIANT:
                return GenericVariant.fromJson(v.asText());
            default:
                throw new IllegalArgumentException("no JSON input for type " + type);
        }
    }

    private static byte[] hex(String s) {
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    // --- Paimon's internal data to tagged JSON ------------------------------------------------

    private static String hexString(byte[] bytes) {
        StringBuilder hex = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) hex.append(String.format("%02x", b & 0xff));
        return hex.toString();
    }

    private static void rowValue(StringBuilder out, InternalRow r, RowType type) {
        out.append('[');
        for (int i = 0; i < type.getFieldCount(); i++) {
            if (i > 0) out.append(',');
            DataType t = type.getTypeAt(i);
            value(out, r.isNullAt(i) ? null : InternalRow.createFieldGetter(t, i).getFieldOrNull(r), t);
        }
        out.append(']');
    }

    private static void tagged(StringBuilder out, String tag, String text) {
        out.append("[\"").append(tag).append("\",");
        string(out, text);
        out.append(']');
    }

    private static void value(StringBuilder out, Object v, DataType type) {
        if (v == null) {
            out.append("null");
            return;
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
                out.append(v.toString());
                return;
            case FLOAT:
                tagged(out, "double", Double.toString(((Float) v).doubleValue()));
                return;
            case DOUBLE:
                tagged(out, "double", v.toString());
                return;
            case DECIMAL:
                tagged(out, "decimal", ((Decimal) v).toBigDecimal().toPlainString());
                return;
            case CHAR:
            case VARCHAR:
                string(out, v.toString());
                return;
            case BINARY:
            case VARBINARY:
                tagged(out, "binary", hexString((byte[]) v));
                return;
            case BLOB:
                // the bytes, as Spark and Flink return a BLOB without 'blob-as-descriptor'
                tagged(out, "binary", hexString(((Blob) v).toData()));
                return;
            case DATE:
                tagged(out, "date", LocalDate.ofEpochDay((Integer) v).toString());
                return;
            case TIME_WITHOUT_TIME_ZONE:
                tagged(out, "time", TIME.format(LocalTime.ofNanoOfDay((Integer) v * 1_000_000L)));
                return;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                tagged(out, "timestamp", TS.format(((Timestamp) v).toLocalDateTime()));
                return;
            case ARRAY:
                DataType et = ((ArrayType) type).getElementType();
                InternalArray a = (InternalArray) v;
                InternalArray.ElementGetter g = InternalArray.createElementGetter(et);
                out.append("[\"array\",[");
                for (int i = 0; i < a.size(); i++) {
                    if (i > 0) out.append(',');
                    value(out, g.getElementOrNull(a, i), et);
                }
                out.append("]]");
                return;
            case MAP:
                MapType mt = (MapType) type;
                InternalMap m = (InternalMap) v;
                InternalArray ks = m.keyArray(), vs = m.valueArray();
                InternalArray.ElementGetter kg = InternalArray.createElementGetter(mt.getKeyType());
                InternalArray.ElementGetter vg = InternalArray.createElementGetter(mt.getValueType());
                out.append("[\"map\",[");
                for (int i = 0; i < m.size(); i++) {
                    if (i > 0) out.append(',');
                    out.append('[');
                    value(out, kg.getElementOrNull(ks, i), mt.getKeyType());
                    out.append(',');
                    value(out, vg.getElementOrNull(vs, i), mt.getValueType());
                    out.append(']');
                }
                out.append("]]");
                return;
            case ROW:
                out.append("[\"row\",");
                rowValue(out, (InternalRow) v, (RowType) type);
                out.append(']');
                return;
            case VARIANT:
                tagged(out, "variant", ((Variant) v).toJson(ZoneOffset.UTC));
                return;
            default:
                out.append("[\"other\",");
                string(out, type.toString());
                out.append(',');
                string(out, v.toString());
                out.append(']');
        }
    }

    /** A JSON string, ASCII only (every other char as a \\u escape). */
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
