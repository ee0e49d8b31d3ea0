"""Every visible string, in Chinese and English. ``t(key, lang, **fields)`` looks one up."""

STRINGS: dict[str, dict[str, str]] = {
    # --- app and navigation ---
    "app_title": {"zh": "注意力实验室", "en": "Attention Lab"},
    "lang_label": {"zh": "界面语言", "en": "Language"},
    "nav_lab": {"zh": "注意力实验室", "en": "Attention Lab"},
    "note_prefix": {
        "zh": "链接里的参数 `{key}` 无法使用，已改用 {used}。",
        "en": "The link's value for `{key}` could not be used; using {used} instead.",
    },
    "note_text_cut": {
        "zh": "链接里的句子太长，只保留了前 {used} 个字符。",
        "en": "The sentence in the link was too long; its first {used} characters are kept.",
    },
    # --- lab: controls ---
    "lab_title": {
        "zh": "缩放点积注意力，一步一步看",
        "en": "Scaled dot-product attention, step by step",
    },
    "lab_intro": {
        "zh": "输入一句话，每个字是一个 token。Q、K、V 是按种子生成的随机向量（均值 0、方差 1），"
        "下面依次展示 QKᵀ → ÷√d → 掩码 → softmax → ×V 的每一步。",
        "en": "Type a sentence: each character is a token. Q, K and V are seeded random vectors "
        "(mean 0, variance 1). Below, every step follows: QKᵀ → ÷√d → mask → softmax → ×V.",
    },
    "controls": {"zh": "设置", "en": "Settings"},
    "text_label": {"zh": "句子（按字切分）", "en": "Sentence (split into characters)"},
    "text_help": {
        "zh": "按回车更新。空格会被忽略；表情、国旗、带声调的字母都算一个字。",
        "en": "Press Enter to update. Spaces are ignored; an emoji, a flag or an accented letter "
        "counts as one character.",
    },
    "special_label": {"zh": "加上 [CLS] 和 [SEP]", "en": "Add [CLS] and [SEP]"},
    "special_help": {
        "zh": "BERT 在句首加 [CLS]、句尾加 [SEP]：我喜欢人工智能 → 9×9 矩阵，和文章一致。",
        "en": "BERT puts [CLS] first and [SEP] last: 我喜欢人工智能 gives the articles' "
        "9×9 matrix.",
    },
    "d_label": {"zh": "向量维度 d", "en": "Vector dimension d"},
    "d_help": {
        "zh": "Q、K、V 每个向量有 d 个数。d 越大，点积 q·k 的波动越大：标准差约为 √d。",
        "en": "Each Q, K, V vector has d numbers. The larger d, the wider q·k spreads: "
        "its standard deviation is about √d.",
    },
    "presets_label": {"zh": "常见维度（一键设置）", "en": "Common sizes (one click)"},
    "preset_64": {
        "zh": "BERT-base 的一个头：768 ÷ 12 = 64",
        "en": "One BERT-base head: 768 ÷ 12 = 64",
    },
    "preset_96": {
        "zh": "1,536 宽、16 个头的模型，每个头 96 维",
        "en": "One head of a 1,536-wide model with 16 heads: 96",
    },
    "preset_768": {"zh": "BERT-base 的隐藏层宽度", "en": "BERT-base's hidden size"},
    "preset_1536": {"zh": "文章里的 1,536 维：√d ≈ 39.2", "en": "The article's 1,536: √d ≈ 39.2"},
    "preset_6144": {
        "zh": "四倍宽：6,144 维，√d ≈ 78.4",
        "en": "Four times wider: 6,144, √d ≈ 78.4",
    },
    "scale_label": {"zh": "除以 √d（缩放）", "en": "Divide by √d (scaling)"},
    "scale_help": {
        "zh": "关掉它，看 softmax 如何变成“赢者通吃”。",
        "en": "Turn it off to watch softmax become “winner takes all”.",
    },
    "mask_label": {"zh": "掩码", "en": "Mask"},
    "mask_help": {
        "zh": "因果掩码：每个字只能看自己和前面的字（GPT）。填充掩码：补上 [PAD]，谁都不看它们。",
        "en": "Causal: each token sees itself and earlier tokens only (GPT). Padding: [PAD] "
        "tokens are appended and nobody attends to them.",
    },
    "mask_none": {"zh": "无", "en": "None"},
    "mask_causal": {"zh": "因果（只看前面）", "en": "Causal (no peeking ahead)"},
    "mask_padding": {"zh": "填充 [PAD]", "en": "Padding [PAD]"},
    "seed_label": {"zh": "随机种子", "en": "Random seed"},
    "seed_help": {
        "zh": "同一个种子 → 同一组 Q、K、V。把链接发给全班，大家看到的数字完全相同。",
        "en": "Same seed → same Q, K, V. Share the link and the whole class sees the same numbers.",
    },
    "new_random": {"zh": "🎲 换一组随机数", "en": "🎲 New random"},
    "row_label": {"zh": "选中的查询字（行）", "en": "Selected query token (row)"},
    "row_help": {
        "zh": "也可以直接点击权重热力图的某一行。",
        "en": "You can also click a row of the weights heatmap.",
    },
    "random_caveat": {
        "zh": "Q、K、V 是随机的：数字只取决于位置和种子，与具体是哪个字无关。",
        "en": "Q, K, V are random: the numbers depend on position and seed, not on which "
        "character it is.",
    },
    # --- lab: messages ---
    "empty_text": {
        "zh": "输入一句话开始吧，例如：我喜欢人工智能。",
        "en": "Type a sentence to begin, for example: 我喜欢人工智能 (I like AI).",
    },
    "capped": {
        "zh": "句子太长：只显示前 {kept} 个字，省略了 {dropped} 个，热力图才看得清。",
        "en": "Long sentence: the first {kept} characters are shown and {dropped} are left out, "
        "so that the heatmaps stay readable.",
    },
    "row_clamped": {
        "zh": "这句话只有 {n} 个 token，所以选中最后一行（第 {row} 行）。",
        "en": "This sentence has {n} tokens, so the last row ({row}) is selected.",
    },
    # --- lab: steps ---
    "tokens_title": {"zh": "① 切分：{n} 个 token", "en": "① Tokens: {n} of them"},
    "tokens_why": {
        "zh": "每个字是一个 token，下标是它的位置。每个位置得到一行 Q、K、V（各 {d} 维）。",
        "en": "Each character is a token; the number is its position. Each position gets one row "
        "of Q, K and V ({d} numbers each).",
    },
    "your_sentence": {"zh": "你的句子：", "en": "Your sentence:"},
    "scores_title": {"zh": "② 原始分数 QKᵀ", "en": "② Raw scores QKᵀ"},
    "scores_why": {
        "zh": "第 i 行第 j 列是 q_i · k_j：第 i 个字的“问题”和第 j 个字的“标签”有多匹配。"
        "d 个乘积相加，所以分数的波动随 d 增大（标准差 ≈ √d = {sqrt_d}）。",
        "en": "Row i, column j is q_i · k_j: how well token i's question matches token j's label. "
        "It adds d products, so the scores spread more as d grows (std ≈ √d = {sqrt_d}).",
    },
    "scaled_title": {"zh": "③ 缩放 ÷ √d", "en": "③ Scaled ÷ √d"},
    "scaled_why_on": {
        "zh": "每个分数除以 √d = {sqrt_d}。方差为 d 的数除以 √d 后方差变为 1，"
        "softmax 的输入回到温和的范围。",
        "en": "Every score is divided by √d = {sqrt_d}. A quantity of variance d divided by √d "
        "has variance 1, so softmax gets inputs in a gentle range.",
    },
    "scaled_why_off": {
        "zh": "缩放已关闭：这一步什么都不做，分数原样进入 softmax——注意下面的权重有多尖锐。",
        "en": "Scaling is off: this step does nothing and the raw scores go into softmax — see "
        "how sharp the weights below become.",
    },
    "masked_title": {"zh": "④ 掩码", "en": "④ Mask"},
    "masked_why_none": {
        "zh": "没有掩码：每个字都可以看所有字，矩阵与上一步相同。",
        "en": "No mask: every token may look at every token; the matrix equals the previous one.",
    },
    "masked_why_causal": {
        "zh": "因果掩码：右上角（未来的字，灰色格子）被设为 −∞，softmax 之后权重正好为 0。",
        "en": "Causal mask: the upper right (future tokens, greyed out) is set to −∞, so after "
        "softmax its weight is exactly 0.",
    },
    "masked_why_padding": {
        "zh": "填充掩码：[PAD] 所在的列（灰色）被设为 −∞，没有任何字会关注补位的 token。",
        "en": "Padding mask: the [PAD] columns (greyed out) are set to −∞, so no token attends "
        "to padding.",
    },
    "latex_allowed": {"zh": "允许关注", "en": "allowed"},
    "latex_masked": {"zh": "被屏蔽", "en": "masked"},
    "weights_title": {"zh": "⑤ softmax：注意力权重", "en": "⑤ Softmax: attention weights"},
    "weights_why": {
        "zh": "每一行取 e 的幂再除以总和，变成非负、和为 1 的概率分布。点击某一行即可选中它。",
        "en": "Each row is exponentiated and divided by its sum: non-negative weights that add "
        "up to 1. Click a row to select it.",
    },
    "bars_title": {
        "zh": "“{token}” 这一行：缩放 vs 不缩放",
        "en": "The “{token}” row: scaled vs unscaled",
    },
    "bars_why": {
        "zh": "同一组 Q、K，只差一个 ÷√d。不缩放时最大权重 {max_off}，缩放后 {max_on}："
        "d 越大，差别越明显。",
        "en": "The same Q and K, differing only by ÷√d. Unscaled, the largest weight is "
        "{max_off}; scaled, {max_on}. The larger d, the starker the difference.",
    },
    "multiples_title": {"zh": "每一行的权重", "en": "Every row's weights"},
    "output_title": {"zh": "⑥ 输出 = 权重 × V", "en": "⑥ Output = weights × V"},
    "output_why": {
        "zh": "“{token}” 的新向量是所有 V 行的加权和：权重大的字贡献多。"
        "下图是每个字的贡献（前 {dims} 维），"
        "最后一行是它们的和。",
        "en": "The new vector of “{token}” is a weighted sum of all V rows: tokens with larger "
        "weights contribute more. Below, each token's contribution (first {dims} dimensions); "
        "the last row is their sum.",
    },
    "output_sum_label": {"zh": "= 输出", "en": "= output"},
    "stats_title": {"zh": "数字一览", "en": "The numbers"},
    "stat_std_raw": {"zh": "原始分数的标准差", "en": "Std of raw scores"},
    "stat_std_raw_vs": {"zh": "√d = {value}", "en": "√d = {value}"},
    "stat_std_scaled": {"zh": "缩放后的标准差", "en": "Std of scaled scores"},
    "stat_std_scaled_vs": {"zh": "目标 ≈ 1", "en": "target ≈ 1"},
    "stat_max_on": {"zh": "最大权重（缩放）", "en": "Max weight (scaled)"},
    "stat_max_off": {"zh": "最大权重（不缩放）", "en": "Max weight (unscaled)"},
    "stat_entropy_on": {"zh": "熵（缩放）", "en": "Entropy (scaled)"},
    "stat_entropy_off": {"zh": "熵（不缩放）", "en": "Entropy (unscaled)"},
    "stat_effective": {"zh": "≈ 关注 {value} 个字", "en": "≈ {value} tokens attended"},
    "stat_row_sum": {"zh": "行和检查", "en": "Row-sum check"},
    "stat_row_sum_ok": {"zh": "所有行和为 1", "en": "every row sums to 1"},
    "stats_why": {
        "zh": "熵以 nat 为单位：均匀分布在 n 个字上时为 ln n，全部集中在一个字上时为 0。",
        "en": "Entropy is in nats: ln n when spread evenly over n tokens, 0 when all on one.",
    },
    "downloads_title": {"zh": "下载", "en": "Downloads"},
    "download_pick": {"zh": "矩阵", "en": "Matrix"},
    "download_button": {"zh": "下载 CSV", "en": "Download CSV"},
    "download_png_hint": {
        "zh": "每张图右上角的相机按钮可以保存 PNG。",
        "en": "Each figure's camera button (top right) saves it as a PNG.",
    },
    # --- figures ---
    "axis_query": {"zh": "查询（Q 的行）", "en": "query (rows of Q)"},
    "axis_key": {"zh": "键（K 的行）", "en": "key (rows of K)"},
    "axis_weight": {"zh": "权重", "en": "weight"},
    "axis_dimension": {"zh": "维度", "en": "dimension"},
    "hover_query": {"zh": "查询", "en": "query"},
    "hover_key": {"zh": "键", "en": "key"},
    "hover_value": {"zh": "值", "en": "value"},
    "masked_cell": {"zh": "已屏蔽（−∞）", "en": "masked (−∞)"},
    "trace_scaled": {"zh": "缩放 ÷√d", "en": "scaled ÷√d"},
    "trace_unscaled": {"zh": "不缩放", "en": "unscaled"},
    "matrix_q": {"zh": "Q", "en": "Q"},
    "matrix_k": {"zh": "K", "en": "K"},
    "matrix_v": {"zh": "V", "en": "V"},
    "matrix_scores": {"zh": "原始分数 QKᵀ", "en": "raw scores QKᵀ"},
    "matrix_scaled": {"zh": "缩放后的分数", "en": "scaled scores"},
    "matrix_masked": {"zh": "掩码后的分数", "en": "masked scores"},
    "matrix_weights": {"zh": "注意力权重", "en": "attention weights"},
    "matrix_output": {"zh": "输出", "en": "output"},
}


def t(key: str, lang: str, /, **fields: object) -> str:
    """The string ``key`` in ``lang`` ("zh" or "en"), with ``{fields}`` filled in."""
    text = STRINGS[key][lang if lang in ("zh", "en") else "zh"]
    return text.format(**fields) if fields else text
