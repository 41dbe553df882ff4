package dev.leapgate.http;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * Finds every pattern of a rule set that matches a request, in time that depends on the request's
 * path, not on the number of patterns: the same answer as asking each {@link PathPattern#matches}
 * in turn, in the patterns' order.
 *
 * <h2>A trie over path segments</h2>
 *
 * Patterns are well shaped for it: {@code **} only as the last segment, {@code *} and {@code
 * {name}} whole segments. Each node of the trie stands for a sequence of segments and has a child
 * per literal segment (a hash table probed with the request's characters in place, without making
 * a substring), at most one child for "any one segment", the patterns that end there, and the
 * patterns that end there with {@code **} (which match the node's path and everything below it).
 *
 * <pre>
 *   /                    ** : [/**]
 *   ├── api              ** : [/api/**]
 *   │   └── users
 *   │       ├── me       end: [GET /api/users/me]
 *   │       └── (any)    end: [GET /api/users/{id}]
 *   └── login            end: [POST /login]
 * </pre>
 *
 * <p>What a request gets is fixed by the node where its walk ends: the patterns that end there,
 * and every {@code **} pattern met on the way. Both are computed for every node when the index is
 * built ({@code ending} and {@code passing}), already in the patterns' order and split by method,
 * so the usual request, whose walk never has two children to choose from, gets a prepared array:
 * no allocation, no sorting. Only where a literal child and an "any" child both fit a segment
 * ({@code /users/me} beside {@code /users/{id}}, for the request {@code /users/me}) does the walk
 * branch, and the answers of its branches are merged.
 *
 * <p>Methods: a prepared array is kept for every method some pattern names (and {@code HEAD}
 * wherever {@code GET} is named), and one for any other method (the method-less patterns). A
 * method with no array of its own is checked against the patterns that name one, so the answer is
 * always {@link PathPattern#matches}'s.
 *
 * <p>Immutable once built; safe to share between threads.
 *
 * @param <T> what a pattern stands for (the rule's compiled state)
 */
final class PatternIndex<T> {

    private final PathPattern[] patterns;
    private final T[] values;
    private final IntFunction<T[]> newArray;
    private final Node root = new Node();
    private final int nodes;

    /**
     * Indexes {@code patterns}; {@code values.get(i)} is what {@code patterns.get(i)} stands for.
     *
     * @param newArray makes an array of {@code T}, for the answers
     */
    PatternIndex(List<PathPattern> patterns, List<T> values, IntFunction<T[]> newArray) {
        if (patterns.size() != values.size()) {
            throw new IllegalArgumentException(patterns.size() + " patterns but " + values.size() + " values");
        }
        this.patterns = patterns.toArray(new PathPattern[0]);
        this.values = values.toArray(newArray.apply(0));
        this.newArray = Objects.requireNonNull(newArray, "newArray");
        for (int i = 0; i < this.patterns.length; i++) {
            insert(i);
        }
        this.nodes = prepare(root, new int[0]);
    }

    /** Nodes of the trie, for reporting its size. */
    int nodes() {
        return nodes;
    }

    private void insert(int index) {
        PathPattern pattern = patterns[index];
        Node node = root;
        for (int s = 0; s < pattern.segmentCount(); s++) {
            if (pattern.isAnyDepth(s)) {
                node.anyDepth.add(index);
                return;
            }
            String literal = pattern.literal(s);
            node = literal == null ? node.oneChild() : node.literalChild(literal);
        }
        node.ending.add(index);
    }

    /** Computes every node's prepared answers; returns the number of nodes below and at {@code node}. */
    private int prepare(Node node, int[] chainAbove) {
        int[] chain = merge(chainAbove, toArray(node.anyDepth));
        node.passingAnswer = new Answer(chain);
        node.endingAnswer = new Answer(merge(chain, toArray(node.ending)));
        node.seal();
        int count = 1;
        for (Object child : node.children) {
            if (child != null) {
                count += prepare((Node) child, chain);
            }
        }
        if (node.one != null) {
            count += prepare(node.one, chain);
        }
        return count;
    }

    private static int[] toArray(List<Integer> list) {
        return list.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The sorted union of two sorted arrays of indexes. */
    private static int[] merge(int[] a, int[] b) {
        if (b.length == 0) {
            return a;
        }
        if (a.length == 0) {
            return b;
        }
        return java.util.stream.IntStream.concat(Arrays.stream(a), Arrays.stream(b))
                .distinct()
                .sorted()
                .toArray();
    }

    /**
     * The values of the patterns that match, in the patterns' order; an empty array when none does.
     * The array may be shared: do not modify it.
     *
     * @param normalizedPath a path as {@link RequestPath} normalizes it (one that does not start
     *     with {@code /} matches nothing)
     */
    T[] match(String method, String normalizedPath) {
        int length = normalizedPath.length();
        if (length == 0 || normalizedPath.charAt(0) != '/') {
            return newArray.apply(0);
        }
        Node node = root;
        int position = 1;
        while (position < length) {
            int end = normalizedPath.indexOf('/', position);
            if (end < 0) {
                end = length;
            }
            Node literal = node.find(normalizedPath, position, end);
            Node one = end > position ? node.one : null;
            if (literal != null && one != null) {
                return branching(method, normalizedPath);
            }
            Node next = literal != null ? literal : one;
            if (next == null) {
                return node.passingAnswer.forMethod(method);
            }
            node = next;
            position = end + 1;
        }
        return node.endingAnswer.forMethod(method);
    }

    /** The answer when the walk can take two children somewhere: every walk's answer, merged. */
    private T[] branching(String method, String path) {
        List<Answer> answers = new ArrayList<>(4);
        collect(root, path, 1, answers);
        Set<Integer> indexes = new java.util.TreeSet<>();
        for (Answer answer : answers) {
            for (int index : answer.indexes) {
                if (patterns[index].matchesMethod(method)) {
                    indexes.add(index);
                }
            }
        }
        T[] matched = newArray.apply(indexes.size());
        int n = 0;
        for (int index : indexes) {
            matched[n++] = values[index];
        }
        return matched;
    }

    private void collect(Node node, String path, int position, List<Answer> answers) {
        int length = path.length();
        if (position >= length) {
            answers.add(node.endingAnswer);
            return;
        }
        int end = path.indexOf('/', position);
        if (end < 0) {
            end = length;
        }
        Node literal = node.find(path, position, end);
        Node one = end > position ? node.one : null;
        if (literal == null && one == null) {
            answers.add(node.passingAnswer);
            return;
        }
        if (literal != null) {
            collect(literal, path, end + 1, answers);
        }
        if (one != null) {
            collect(one, path, end + 1, answers);
        }
    }

    /** One node's prepared answer: indexes of the patterns it holds, and their values per method. */
    private final class Answer {
        final int[] indexes;
        /** The methods some pattern of this answer names, with HEAD where GET is named. */
        final String[] methods;
        /** Per method in {@code methods}, the values of the patterns that match it. */
        final Object[] byMethod;
        /** The values of the patterns that name no method: what any other method gets... */
        final T[] anyMethod;
        /** ... unless a pattern naming a method matches a request's method another way. */
        final boolean hasMethods;

        Answer(int[] indexes) {
            this.indexes = indexes;
            Set<String> named = new LinkedHashSet<>();
            for (int index : indexes) {
                patterns[index].method().ifPresent(m -> {
                    named.add(m);
                    if (m.equals("GET")) {
                        named.add("HEAD");
                    }
                });
            }
            this.methods = named.toArray(new String[0]);
            this.byMethod = new Object[methods.length];
            for (int m = 0; m < methods.length; m++) {
                byMethod[m] = filter(methods[m]);
            }
            this.anyMethod = filter(null);
            this.hasMethods = methods.length > 0;
        }

        /** The values of the patterns matching {@code method}; with null, those naming no method. */
        private T[] filter(String method) {
            List<T> matched = new ArrayList<>();
            for (int index : indexes) {
                PathPattern pattern = patterns[index];
                if (method == null ? pattern.method().isEmpty() : pattern.matchesMethod(method)) {
                    matched.add(values[index]);
                }
            }
            return matched.toArray(newArray.apply(matched.size()));
        }

        @SuppressWarnings("unchecked")
        T[] forMethod(String method) {
            for (int m = 0; m < methods.length; m++) {
                if (methods[m].equals(method)) {
                    return (T[]) byMethod[m];
                }
            }
            if (hasMethods) {
                for (int index : indexes) {
                    if (patterns[index].method().isPresent() && patterns[index].matchesMethod(method)) {
                        return filter(method); // a spelling no pattern names, that one still matches
                    }
                }
            }
            return anyMethod;
        }
    }

    /** A node of the trie. Built, then sealed; read-only after. */
    private final class Node {
        // Literal children: open addressing, probed with the request's characters in place.
        String[] keys = new String[0];
        /** The child of {@code keys[i]}; Object, since an array of an inner class of a generic is not allowed. */
        Object[] children = new Object[0];
        /** The child for '*' and '{name}', or null. */
        Node one;

        final List<Integer> ending = new ArrayList<>();
        final List<Integer> anyDepth = new ArrayList<>();
        /** While building: literal children in insertion order. */
        private final java.util.Map<String, Node> building = new java.util.LinkedHashMap<>();

        Answer endingAnswer;
        Answer passingAnswer;

        Node literalChild(String literal) {
            return building.computeIfAbsent(literal, l -> new Node());
        }

        Node oneChild() {
            if (one == null) {
                one = new Node();
            }
            return one;
        }

        /** Builds the probing table from the children: a power of two at most half full. */
        void seal() {
            int size = Integer.highestOneBit(Math.max(1, building.size() * 2 - 1)) << 1;
            if (building.isEmpty()) {
                size = 0;
            }
            keys = new String[size];
            children = new Object[size];
            for (java.util.Map.Entry<String, Node> child : building.entrySet()) {
                String key = child.getKey();
                int slot = spread(key.hashCode()) & (size - 1);
                while (keys[slot] != null) {
                    slot = (slot + 1) & (size - 1);
                }
                keys[slot] = key;
                children[slot] = child.getValue();
            }
            building.clear();
            ending.clear();
            anyDepth.clear();
        }

        /** The literal child for {@code path[from, to)}, or null; no substring is made. */
        Node find(String path, int from, int to) {
            int size = keys.length;
            if (size == 0) {
                return null;
            }
            int hash = 0;
            for (int i = from; i < to; i++) {
                hash = 31 * hash + path.charAt(i); // String.hashCode of the segment
            }
            int length = to - from;
            for (int slot = spread(hash) & (size - 1); ; slot = (slot + 1) & (size - 1)) {
                String key = keys[slot];
                if (key == null) {
                    return null;
                }
                if (key.length() == length && path.startsWith(key, from)) {
                    @SuppressWarnings("unchecked")
                    Node child = (Node) children[slot];
                    return child;
                }
            }
        }
    }

    /**
     * Mixes a segment's {@code String.hashCode} before it picks a slot. Route names are often
     * numbered ({@code r1} ... {@code r999}, {@code v1}, {@code v2}), and their hash codes then
     * differ only in their low bits by small steps: taken as they are, they fill runs of adjacent
     * slots, and linear probing walked up to 27 slots to find {@code r999} among 1,000 siblings.
     * Multiplying by the golden ratio (an odd constant, so no two hashes meet) scatters them.
     */
    static int spread(int hash) {
        int mixed = hash * 0x9E3779B9;
        return mixed ^ (mixed >>> 16);
    }
}
