/**
 * Stop words: words so common in support questions that alone they say nothing of which document is meant.
 * Chinese ones are not index terms; English ones are, with their IDF over the English chunks, and the grading
 * evidence leaves them out (docs/retrieval.md "Lexical index"). Negations (`not`, `不`, `没`) are deliberately
 * absent: "the screen does not light up" is a different question from "the screen lights up".
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but if then else of at by for with about against between into through during before after above below to from up down in out on off over under ' +
    'again further once here there when where why how all any both each few more most other some such only own same so than too very ' +
    'i me my myself we our ours you your yours he him his she her hers it its they them their what which who whom this that these those ' +
    'am is are was were be been being have has had having do does did doing would should could can will shall may might must ' +
    'just also please hi hello thanks thank let lets get got im ive id dont cant ' +
    's t d ll m o re ve y'
  ).split(/\s+/),
);

/**
 * The commonest English words: nearly every English chunk contains one, so the most frequent of them counts the
 * tenant's English chunks — the N of a stop word's IDF (docs/retrieval.md "Lexical index").
 */
export const ENGLISH_MARKER_WORDS: readonly string[] = Object.freeze(['the', 'of', 'and', 'to', 'a', 'in', 'is', 'for']);

export const CHINESE_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    '的 了 吗 呢 啊 吧 呀 嘛 哦 哈 么 是 在 有 和 与 及 或 就 都 也 还 又 把 被 让 给 对 从 向 于 以 之 而 并 ' +
    '我 你 您 他 她 它 我们 你们 他们 这 那 这个 那个 这些 那些 哪 哪个 什么 怎么 怎样 怎么样 如何 为什么 为何 ' +
    '请问 请 一下 麻烦 谢谢 你好 您好 可以 可不可以 能 能不能 能否 会 要 想 需要 应该 一个 个 些 下 上 中 ' +
    '吗？ 呢？ 么？ 了吗 办 怎么办 该 得 地 着 过 啦'
  ).split(/\s+/),
);
