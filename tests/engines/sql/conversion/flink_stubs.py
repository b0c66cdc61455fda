"""Stand-ins for the part of Flink's Java API the generated programs use, with Flink 2.x's
signatures, so that javac can check a program's syntax and types without Flink's jars."""
from __future__ import annotations

STUBS = {
    "org/apache/flink/types/Row.java": """package org.apache.flink.types;
public class Row {
    public static Row withNames() { return new Row(); }
    public Object getField(String name) { return null; }
    public void setField(String name, Object value) { }
}""",
    "org/apache/flink/util/Collector.java": """package org.apache.flink.util;
public interface Collector<T> { void collect(T record); void close(); }""",
    "org/apache/flink/api/common/eventtime/SerializableTimestampAssigner.java": """package org.apache.flink.api.common.eventtime;
@FunctionalInterface
public interface SerializableTimestampAssigner<T> { long extractTimestamp(T element, long recordTimestamp); }""",
    "org/apache/flink/api/common/eventtime/WatermarkStrategy.java": """package org.apache.flink.api.common.eventtime;
public interface WatermarkStrategy<T> {
    static <T> WatermarkStrategy<T> forMonotonousTimestamps() { return null; }
    default WatermarkStrategy<T> withTimestampAssigner(SerializableTimestampAssigner<T> assigner) { return this; }
}""",
    "org/apache/flink/api/java/functions/KeySelector.java": """package org.apache.flink.api.java.functions;
@FunctionalInterface
public interface KeySelector<IN, KEY> { KEY getKey(IN value) throws Exception; }""",
    "org/apache/flink/streaming/api/datastream/DataStream.java": """package org.apache.flink.streaming.api.datastream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.java.functions.KeySelector;
public class DataStream<T> {
    public SingleOutputStreamOperator<T> assignTimestampsAndWatermarks(WatermarkStrategy<T> strategy) { return null; }
    public <K> KeyedStream<T, K> keyBy(KeySelector<T, K> key) { return null; }
    public Object print() { return null; }
}""",
    "org/apache/flink/streaming/api/datastream/KeyedStream.java": """package org.apache.flink.streaming.api.datastream;
public class KeyedStream<T, K> extends DataStream<T> { }""",
    "org/apache/flink/streaming/api/datastream/SingleOutputStreamOperator.java": """package org.apache.flink.streaming.api.datastream;
public class SingleOutputStreamOperator<T> extends DataStream<T> { }""",
    "org/apache/flink/streaming/api/datastream/DataStreamSource.java": """package org.apache.flink.streaming.api.datastream;
public class DataStreamSource<T> extends SingleOutputStreamOperator<T> { }""",
    "org/apache/flink/streaming/api/environment/StreamExecutionEnvironment.java": """package org.apache.flink.streaming.api.environment;
import java.util.Collection;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
public class StreamExecutionEnvironment {
    public static StreamExecutionEnvironment getExecutionEnvironment() { return null; }
    public StreamExecutionEnvironment setParallelism(int parallelism) { return this; }
    public <T> DataStreamSource<T> fromData(Collection<T> data) { return null; }
    public Object execute(String name) throws Exception { return null; }
}""",
    "org/apache/flink/cep/CEP.java": """package org.apache.flink.cep;
import org.apache.flink.cep.pattern.Pattern;
import org.apache.flink.streaming.api.datastream.DataStream;
public class CEP {
    public static <T> PatternStream<T> pattern(DataStream<T> input, Pattern<T, ?> pattern) { return null; }
}""",
    "org/apache/flink/cep/PatternStream.java": """package org.apache.flink.cep;
import org.apache.flink.cep.functions.PatternProcessFunction;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
public class PatternStream<T> {
    public <R> SingleOutputStreamOperator<R> process(PatternProcessFunction<T, R> function) { return null; }
}""",
    "org/apache/flink/cep/functions/PatternProcessFunction.java": """package org.apache.flink.cep.functions;
import java.util.List;
import java.util.Map;
import org.apache.flink.util.Collector;
public abstract class PatternProcessFunction<IN, OUT> {
    public abstract void processMatch(Map<String, List<IN>> match, Context ctx, Collector<OUT> out) throws Exception;
    public interface Context { long currentProcessingTime(); }
}""",
    "org/apache/flink/cep/nfa/aftermatch/AfterMatchSkipStrategy.java": """package org.apache.flink.cep.nfa.aftermatch;
public abstract class AfterMatchSkipStrategy {
    public static AfterMatchSkipStrategy skipPastLastEvent() { return null; }
    public static AfterMatchSkipStrategy skipToNext() { return null; }
    public static AfterMatchSkipStrategy noSkip() { return null; }
    public static AfterMatchSkipStrategy skipToFirst(String name) { return null; }
    public static AfterMatchSkipStrategy skipToLast(String name) { return null; }
}""",
    "org/apache/flink/cep/pattern/conditions/IterativeCondition.java": """package org.apache.flink.cep.pattern.conditions;
public abstract class IterativeCondition<T> {
    public abstract boolean filter(T value, Context<T> ctx) throws Exception;
    public interface Context<T> { Iterable<T> getEventsForPattern(String name) throws Exception; long timestamp(); }
}""",
    "org/apache/flink/cep/pattern/conditions/SimpleCondition.java": """package org.apache.flink.cep.pattern.conditions;
public abstract class SimpleCondition<T> extends IterativeCondition<T> {
    public abstract boolean filter(T value) throws Exception;
    @Override
    public boolean filter(T value, Context<T> ctx) throws Exception { return filter(value); }
}""",
    "org/apache/flink/cep/pattern/Pattern.java": """package org.apache.flink.cep.pattern;
import java.time.Duration;
import org.apache.flink.cep.nfa.aftermatch.AfterMatchSkipStrategy;
import org.apache.flink.cep.pattern.conditions.IterativeCondition;
public class Pattern<T, F extends T> {
    public static <X> Pattern<X, X> begin(String name, AfterMatchSkipStrategy strategy) { return null; }
    public Pattern<T, F> where(IterativeCondition<F> condition) { return this; }
    public Pattern<T, T> next(String name) { return null; }
    public Pattern<T, F> oneOrMore() { return this; }
    public Pattern<T, F> optional() { return this; }
    public Pattern<T, F> times(int n) { return this; }
    public Pattern<T, F> times(int from, int to) { return this; }
    public Pattern<T, F> timesOrMore(int n) { return this; }
    public Pattern<T, F> consecutive() { return this; }
    public Pattern<T, F> greedy() { return this; }
    public Pattern<T, F> within(Duration window) { return this; }
}""",
}
