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
        "zh": "输入一句话，每个字是一个 token。Q、K、V 默认是按种子生成的随机向量（均值 0、方差 "
        "1），"
        "下面依次展示 QKᵀ → ÷√d → 掩码 → softmax → ×V 的每一步。",
        "en": "Type a sentence: each character is a token. By default Q, K and V are seeded "
        "random vectors "
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
    "multiples_title": {
        "zh": "显示每一行的权重（小图）",
        "en": "Show every row's weights (small charts)",
    },
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


STRINGS.update(
    {
        # --- navigation ---
        "nav_softmax": {"zh": "Softmax 是怎么工作的", "en": "How softmax works"},
        "nav_scaling": {"zh": "为什么除以 √d", "en": "Why divide by √d"},
        "nav_steps": {"zh": "六步走一遍", "en": "The six steps"},
        "nav_quiz": {"zh": "小测验", "en": "Quiz"},
        # --- softmax lesson ---
        "sm_title": {
            "zh": "Softmax：把分数变成概率",
            "en": "Softmax: turning scores into probabilities",
        },
        "sm_intro": {
            "zh": "Softmax 对每个数取 e 的幂，再除以总和：结果非负、加起来等于 1。"
            "输入一组数（逗号分隔），或者点一个文章里的例子。",
            "en": "Softmax raises e to each number and divides by the total: the results are "
            "non-negative and add up to 1. Type numbers (comma-separated) or pick an example "
            "from the articles.",
        },
        "sm_values_label": {"zh": "输入的数（逗号分隔）", "en": "Numbers (comma-separated)"},
        "sm_values_help": {
            "zh": "最多 12 个数，例如 2.0, 1.0, 0.1。按回车更新。",
            "en": "Up to 12 numbers, e.g. 2.0, 1.0, 0.1. Press Enter to update.",
        },
        "sm_values_bad": {
            "zh": "请输入 1 到 12 个用逗号分隔的数字（绝对值不超过一百万），例如 2.0, 1.0, 0.1。"
            "下面先显示默认的例子。",
            "en": "Please type 1 to 12 numbers separated by commas (each at most a million in "
            "size), "
            "e.g. 2.0, 1.0, 0.1. The default example is shown meanwhile.",
        },
        "sm_divisor_label": {"zh": "除数（例如 √64 = 8）", "en": "Divisor (e.g. √64 = 8)"},
        "sm_divisor_help": {
            "zh": "先把每个数除以它，再做 softmax。1 表示不缩放。",
            "en": "Each number is divided by it before softmax. 1 means no scaling.",
        },
        "sm_presets": {"zh": "文章里的例子", "en": "Examples from the articles"},
        "sm_preset_basic": {
            "zh": "[2.0, 1.0, 0.1] 基本例子",
            "en": "[2.0, 1.0, 0.1] the basic one",
        },
        "sm_preset_winner": {"zh": "[20, 10, 1] 赢者通吃", "en": "[20, 10, 1] winner takes all"},
        "sm_preset_flat": {
            "zh": "[0.02, 0.01, 0.01] 几乎均匀",
            "en": "[0.02, 0.01, 0.01] nearly even",
        },
        "sm_preset_mild": {"zh": "[10, 11, 9] 还算正常", "en": "[10, 11, 9] still fine"},
        "sm_preset_sharp": {"zh": "[40, 44, 36] 过于尖锐", "en": "[40, 44, 36] far too sharp"},
        "sm_preset_xi_raw": {"zh": "“喜”这一行，不缩放", "en": "The “喜” row, unscaled"},
        "sm_preset_xi_8": {"zh": "“喜”这一行 ÷ 8", "en": "The “喜” row ÷ 8"},
        "sm_preset_five_raw": {"zh": "代码示例的 5 个分数", "en": "The code's 5 scores"},
        "sm_preset_five_8": {"zh": "代码示例的 5 个分数 ÷ 8", "en": "The code's 5 scores ÷ 8"},
        "sm_preset_grad_raw": {"zh": "[20, −10, 5] 不缩放", "en": "[20, −10, 5] unscaled"},
        "sm_preset_grad_8": {"zh": "[20, −10, 5] 除以 8", "en": "[20, −10, 5] ÷ 8"},
        "sm_preset_overflow": {"zh": "[1000, 999] 溢出", "en": "[1000, 999] overflow"},
        "sm_article_differs": {
            "zh": "文章印的是 {printed}；计算结果是 {computed}。",
            "en": "The article prints {printed}; the computation gives {computed}.",
        },
        "sm_article_agrees": {
            "zh": "与文章一致：{printed}。",
            "en": "Agrees with the article: {printed}.",
        },
        "sm_table_title": {"zh": "一步一步算", "en": "Step by step"},
        "sm_table_why": {
            "zh": "先减去最大值（结果不变，因为分子分母同乘了 e^−max），e 的幂就不会溢出。",
            "en": "Subtracting the max first changes nothing (numerator and denominator are both "
            "multiplied by e^−max), but the powers of e can no longer overflow.",
        },
        "sm_col_position": {"zh": "位置", "en": "position"},
        "sm_col_x": {"zh": "x", "en": "x"},
        "sm_col_scaled": {"zh": "x ÷ 除数", "en": "x ÷ divisor"},
        "sm_col_shifted": {"zh": "减去最大值", "en": "minus the max"},
        "sm_col_exp": {"zh": "e 的幂", "en": "e to that power"},
        "sm_col_prob": {"zh": "概率", "en": "probability"},
        "sm_total": {
            "zh": "总和 Σ = {total}，概率之和 = {check}",
            "en": "Sum Σ = {total}; probabilities add up to {check}",
        },
        "sm_chart_title": {"zh": "输入与概率", "en": "Input and probability"},
        "sm_chart_why": {
            "zh": "左边是 softmax 的输入，右边是输出：差距被指数函数放大了。",
            "en": "Left, what goes into softmax; right, what comes out: exp magnifies the gaps.",
        },
        "sm_axis_input": {"zh": "输入 x ÷ 除数", "en": "input x ÷ divisor"},
        "sm_axis_prob": {"zh": "概率", "en": "probability"},
        "sm_stability_title": {
            "zh": "数值稳定：为什么要减去最大值",
            "en": "Numerical stability: why subtract the max",
        },
        "sm_stability_why": {
            "zh": "直接算 e^x：x 超过 709 时 e^x 超出浮点数范围（溢出为 ∞），∞/∞ 没有定义。",
            "en": "Computing e^x directly: above x ≈ 709, e^x is beyond floating point (it "
            "overflows "
            "to ∞), and ∞/∞ is undefined.",
        },
        "sm_naive": {"zh": "直接计算 e^x / Σe^x", "en": "Naive e^x / Σe^x"},
        "sm_stable": {"zh": "先减最大值", "en": "Max subtracted first"},
        "sm_overflow": {"zh": "∞（溢出）", "en": "∞ (overflow)"},
        "sm_undefined": {"zh": "无定义（∞/∞）", "en": "undefined (∞/∞)"},
        "sm_naive_ok": {
            "zh": "这组数没有溢出：两种算法结果相同。",
            "en": "No overflow for these numbers: both agree.",
        },
        "sm_naive_broken": {
            "zh": "直接计算溢出了：得到 ∞ 和无定义的结果。减去最大值后结果完全正确。",
            "en": "The naive formula overflowed: ∞ and undefined results. With the max subtracted "
            "the "
            "result is exact.",
        },
        "sm_gradient_title": {
            "zh": "梯度：接近 one-hot 时学不动",
            "en": "Gradients: near one-hot, nothing is learned",
        },
        "sm_gradient_why": {
            "zh": "若正确答案是第 t 个，交叉熵对输入的梯度是 p − one-hot(t)。"
            "右边的 Jacobian ∂p_i/∂x_j = p_i(δ_ij − p_j) 在输出接近 one-hot 时几乎全是 0。",
            "en": "If the right answer is position t, the cross-entropy gradient with respect to "
            "the "
            "inputs is p − one-hot(t). The Jacobian ∂p_i/∂x_j = p_i(δ_ij − p_j), right, is almost "
            "all 0 when the output is nearly one-hot.",
        },
        "sm_target_label": {"zh": "正确答案的位置 t", "en": "Position t of the right answer"},
        "sm_gradient_size": {
            "zh": "梯度最大分量 {grad}，Jacobian 大小 ‖J‖ = {norm}",
            "en": "Largest gradient entry {grad}; Jacobian size ‖J‖ = {norm}",
        },
        "sm_axis_gradient": {"zh": "梯度 p − one-hot", "en": "gradient p − one-hot"},
        "axis_position": {"zh": "位置", "en": "position"},
        "axis_output": {"zh": "输出 p_i", "en": "output p_i"},
        "axis_input": {"zh": "输入 x_j", "en": "input x_j"},
        # --- scaling lesson ---
        "sc_title": {"zh": "为什么要除以 √d", "en": "Why divide by √d"},
        "sc_intro": {
            "zh": "两个 d 维向量的点积是 d 个乘积之和。若每个分量独立、均值 0、方差 1，"
            "则 Var(q·k) = d，标准差 √d。下面用随机抽样验证它，并看它对 softmax 的影响。",
            "en": "The dot product of two d-dimensional vectors is a sum of d products. With "
            "independent entries of mean 0 and variance 1, Var(q·k) = d and the standard deviation "
            "is √d. Below, random sampling checks it, and shows what it does to softmax.",
        },
        "sc_distribution_label": {"zh": "分量的分布", "en": "Distribution of the entries"},
        "sc_distribution_normal": {
            "zh": "标准正态（方差 1）",
            "en": "Standard normal (variance 1)",
        },
        "sc_distribution_uniform": {
            "zh": "[−1, 1] 上均匀（方差 1/3）",
            "en": "Uniform on [−1, 1] (variance 1/3)",
        },
        "sc_uniform_note": {
            "zh": "第一篇文章说“每个维度的值大约在 −1 到 1 之间”。均匀分布在 [−1, 1] 上的方差是 "
            "1/3，"
            "所以 Var(q·k) = d × (1/3)² = d/9，除以 √d 后是 1/9，而不是 1。",
            "en": "The first article says “each dimension is roughly between −1 and 1”. Uniform on "
            "[−1, 1] has variance 1/3, so Var(q·k) = d × (1/3)² = d/9, and 1/9 after ÷√d, not 1.",
        },
        "sc_variance_title": {
            "zh": "实验：Var(q·k) 随 d 增长",
            "en": "Experiment: Var(q·k) grows with d",
        },
        "sc_variance_why": {
            "zh": "每个 d 抽 {samples} 对随机向量。点是实测方差，线是理论值：缩放前沿着 "
            "{theory_raw}，"
            "缩放后停在 {theory_scaled}。",
            "en": "{samples} random pairs per d. Dots are measured variances, lines the theory: "
            "{theory_raw} before scaling, a flat {theory_scaled} after.",
        },
        "sc_trace_raw": {"zh": "Var(q·k) 实测", "en": "Var(q·k) measured"},
        "sc_trace_scaled": {"zh": "Var(q·k/√d) 实测", "en": "Var(q·k/√d) measured"},
        "sc_trace_theory_raw": {"zh": "理论 {theory}", "en": "theory {theory}"},
        "sc_trace_theory_scaled": {"zh": "理论 {theory}", "en": "theory {theory}"},
        "sc_axis_d": {"zh": "维度 d（对数刻度）", "en": "dimension d (log scale)"},
        "sc_axis_variance": {"zh": "方差（对数刻度）", "en": "variance (log scale)"},
        "sc_histogram_title": {"zh": "d = {d} 时 q·k 的分布", "en": "The spread of q·k at d = {d}"},
        "sc_histogram_why": {
            "zh": "实测标准差 {std}，理论 √d = {sqrt_d}；除以 √d 后标准差 {std_scaled}。",
            "en": "Measured std {std}, theory √d = {sqrt_d}; after ÷√d the std is {std_scaled}.",
        },
        "sc_article_marker": {"zh": "文章：标准差 ≈ {std}", "en": "article: std ≈ {std}"},
        "sc_raw": {"zh": "q·k（不缩放）", "en": "q·k (unscaled)"},
        "sc_scaled": {"zh": "q·k / √d（缩放）", "en": "q·k / √d (scaled)"},
        "sc_count": {"zh": "次数", "en": "count"},
        "sc_article_table": {
            "zh": "文章里的数：d = 64 → √d = 8；d = 1,536 → ≈ 39.2；d = 6,144 → ≈ 78.4。",
            "en": "The articles' figures: d = 64 → √d = 8; d = 1,536 → ≈ 39.2; d = 6,144 → ≈ 78.4.",
        },
        "sc_saturation_title": {
            "zh": "饱和：softmax 变成 one-hot，梯度消失",
            "en": "Saturation: softmax turns one-hot and gradients vanish",
        },
        "sc_saturation_why": {
            "zh": "一行 {n} 个随机分数，每个 d 重复 {trials} 次。不缩放时最大权重趋近 1、熵趋近 0、"
            "梯度趋近 0——模型学不动；缩放后三者都基本不随 d 变化。",
            "en": "One row of {n} random scores, {trials} times per d. Unscaled, the largest "
            "weight "
            "goes to 1, entropy to 0 and the gradient to 0: the model stops learning. Scaled, all "
            "three stay level as d grows.",
        },
        "sc_max_weight": {"zh": "平均最大权重", "en": "mean largest weight"},
        "sc_entropy": {"zh": "平均熵（nat）", "en": "mean entropy (nats)"},
        "sc_gradient": {"zh": "平均梯度大小 ‖J‖", "en": "mean gradient size ‖J‖"},
        "sc_animation_title": {
            "zh": "动画：同一行随 d 变尖",
            "en": "Animation: one row sharpening as d grows",
        },
        "sc_animation_why": {
            "zh": "点 ▶ 播放：d 从 1 增加到 8192（用同一组向量的前 d 维）。红色不缩放，"
            "很快变成一根尖刺；蓝色缩放，保持平稳。",
            "en": "Press ▶: d grows from 1 to 8192 (the first d dimensions of the same vectors). "
            "Red "
            "is unscaled and soon becomes a single spike; blue is scaled and stays steady.",
        },
        "sc_play": {"zh": "▶ 播放", "en": "▶ Play"},
        "sc_pause": {"zh": "⏸ 暂停", "en": "⏸ Pause"},
        "sc_temperature_note": {
            "zh": "√d 其实就是一个固定的“温度”：softmax(s / T) 中 T 越大分布越平，T = √d "
            "正好抵消维度带来的放大。",
            "en": "√d is a fixed “temperature”: in softmax(s / T), a larger T flattens the "
            "distribution, and T = √d exactly cancels the growth that comes with d.",
        },
        # --- steps lesson ---
        "st_title": {"zh": "六步走一遍注意力", "en": "Attention in six steps"},
        "st_intro": {
            "zh": "按第一篇文章的总结，一次看一步。用的是实验室里的句子和设置。",
            "en": "Following the first article's summary, one step per screen, with the sentence "
            "and "
            "settings of the lab.",
        },
        "st_using": {"zh": "句子：", "en": "Sentence:"},
        "st_settings": {
            "zh": "d = {d}，{scale}，掩码：{mask}，种子 {seed}",
            "en": "d = {d}, {scale}, mask: {mask}, seed {seed}",
        },
        "st_scaled_on": {"zh": "缩放", "en": "scaled"},
        "st_scaled_off": {"zh": "不缩放", "en": "unscaled"},
        "st_prev": {"zh": "← 上一步", "en": "← Previous"},
        "st_next": {"zh": "下一步 →", "en": "Next →"},
        "st_indicator": {"zh": "第 {step} 步，共 6 步", "en": "Step {step} of 6"},
        "st_step_1": {"zh": "① 生成 Q、K、V", "en": "① Make Q, K, V"},
        "st_step_2": {"zh": "② 分数 = Q × Kᵀ", "en": "② Scores = Q × Kᵀ"},
        "st_step_3": {"zh": "③ 缩放：÷ √d", "en": "③ Scale: ÷ √d"},
        "st_step_4": {"zh": "④ 掩码", "en": "④ Mask"},
        "st_step_5": {
            "zh": "⑤ softmax 得到注意力权重",
            "en": "⑤ Softmax gives the attention weights",
        },
        "st_step_6": {"zh": "⑥ 输出 = 权重 × V", "en": "⑥ Output = weights × V"},
        "st_why_1": {
            "zh": "真实模型里 Q = X·W_Q、K = X·W_K、V = X·W_V（三次矩阵乘法）。这里它们是随机的，"
            "每行一个字，显示前 {dims} 维（共 {d} 维）。Q 像“我在找什么”，K 像“我有什么”，V "
            "是“我要传递的内容”。",
            "en": "In a real model Q = X·W_Q, K = X·W_K, V = X·W_V (three matrix products). Here "
            "they "
            "are random: one row per token, the first {dims} of {d} dimensions shown. Q is “what I "
            "look for”, K “what I offer”, V “what I pass on”.",
        },
        "st_why_2": {
            "zh": "每个字的 q 和每个字的 k 做点积：{n} × {n} 个分数。分数越大，越“匹配”。"
            "这是第二次矩阵乘法。",
            "en": "Every token's q is dotted with every token's k: {n} × {n} scores. The larger, "
            "the "
            "better the match. This is the second matrix product.",
        },
        "st_why_3": {
            "zh": "点积的方差随 d 增长（标准差 ≈ √d）。除以 √d = {sqrt_d} 让分数回到方差约 1 "
            "的温和范围，softmax 才不会变成“赢者通吃”。",
            "en": "The spread of dot products grows with d (std ≈ √d). Dividing by √d = {sqrt_d} "
            "brings the scores back to a variance of about 1, so softmax does not become "
            "winner-takes-all.",
        },
        "st_why_3_off": {
            "zh": "实验室里关掉了缩放，所以这一步原样通过。回到实验室打开它，比较下一步的权重。",
            "en": "Scaling is off in the lab, so this step passes the scores through unchanged. "
            "Turn it "
            "on in the lab and compare the weights of the next step.",
        },
        "st_why_4": {
            "zh": "不允许看的位置设为 −∞（灰色），softmax 之后它们的权重正好是 0。GPT 用因果掩码，"
            "不让字看到后面的字。",
            "en": "Positions that may not be seen are set to −∞ (grey), so after softmax their "
            "weight "
            "is exactly 0. GPT uses a causal mask so that no token sees the tokens after it.",
        },
        "st_why_5": {
            "zh": "每一行做 softmax：取 e 的幂再除以总和，得到非负、和为 1 的权重。",
            "en": "Softmax on every row: powers of e divided by their sum, giving non-negative "
            "weights "
            "that add up to 1.",
        },
        "st_why_6": {
            "zh": "每个字的新向量 = 所有字的 V 按权重加权求和（第三次矩阵乘法）。输出和 V 一样是 "
            "{n} × {d}，显示前 {dims} 维。",
            "en": "Each token's new vector is the weighted sum of every token's V (the third "
            "matrix "
            "product). The output is {n} × {d}, like V; the first {dims} dimensions are shown.",
        },
        "axis_token": {"zh": "字（token）", "en": "token"},
        # --- quiz ---
        "qz_title": {"zh": "小测验", "en": "Check yourself"},
        "qz_intro": {
            "zh": "先是文章的三道思考题（点开看参考答案），再是带数字的题目。同一个题号，"
            "全班看到的数字相同。",
            "en": "First the articles' three questions (open for the model answer), then questions "
            "with numbers. The same quiz number gives the whole class the same numbers.",
        },
        "qz_seed_label": {"zh": "题号", "en": "Quiz number"},
        "qz_new": {"zh": "🎲 换一套题", "en": "🎲 New questions"},
        "qz_article_title": {"zh": "文章的思考题", "en": "The articles' questions"},
        "qz_reveal": {"zh": "参考答案", "en": "Model answer"},
        "qz_a1_q": {
            "zh": "题 1：为什么 Softmax 前要除以 √d_k？",
            "en": "Q1: Why divide by √d_k before softmax?",
        },
        "qz_a1_a": {
            "zh": "因为点积的方差正比于维度 d_k。不缩放的话，分数范围随维度增大而膨胀，Softmax "
            "输出会退化为接近 one-hot 的分布，导致梯度消失，模型无法学习。",
            "en": "Because the variance of a dot product grows in proportion to d_k. Without "
            "scaling "
            "the scores spread wider as d_k grows, softmax degenerates to a nearly one-hot output, "
            "the gradients vanish, and the model cannot learn.",
        },
        "qz_a2_q": {
            "zh": "题 2：Softmax 的两个关键操作分别是什么？",
            "en": "Q2: What are softmax's two key operations?",
        },
        "qz_a2_a": {
            "zh": "exp（指数函数）放大分数差距，让好的更好、差的更差；"
            "归一化（除以总和）保证所有权重为正且和为 1，形成概率分布。",
            "en": "exp (the exponential) magnifies the gaps between scores, so the good get better "
            "and the poor worse; normalising (dividing by the sum) makes every weight positive and "
            "the weights add up to 1: a probability distribution.",
        },
        "qz_a3_q": {
            "zh": "题 3：加权求和后，“喜”的新向量里包含了谁的信息？",
            "en": "Q3: After the weighted sum, whose information does the new vector of “喜” hold?",
        },
        "qz_a3_a": {
            "zh": "主要包含“我”（16%）和“欢”（23%）的信息——因为“喜欢”是一个词，“我”是主语。“人、"
            "工、智、能”各只占约 3%，因为和“喜”语义关系较远。"
            "（在实验室里，随机的 Q、K 给出的权重不同：真实的权重来自训练。）",
            "en": "Mostly 我 (16 %) and 欢 (23 %): 喜欢 is one word and 我 is its subject. 人, "
            "工, 智, 能 "
            "get about 3 % each, being further from 喜 in meaning. (In the lab, random Q and K "
            "give "
            "other weights: real weights come from training.)",
        },
        "qz_numeric_title": {"zh": "算一算", "en": "Work it out"},
        "qz_answer_label": {"zh": "你的答案", "en": "Your answer"},
        "qz_correct": {
            "zh": "✓ 正确！答案是 {answer}。",
            "en": "✓ Correct! The answer is {answer}.",
        },
        "qz_wrong": {"zh": "✗ 还差一点。提示：{hint}", "en": "✗ Not quite. Hint: {hint}"},
        "qz_show": {"zh": "看答案", "en": "Show the answer"},
        "qz_answer_is": {"zh": "答案：{answer}。{hint}", "en": "Answer: {answer}. {hint}"},
        "qz_score": {"zh": "已答对 {right} / {total} 题", "en": "{right} of {total} right"},
        "qz_softmax_by_hand": {
            "zh": "计算 softmax([{x0}, {x1}, {x2}]) 的第一个值（保留 3 位小数）。",
            "en": "Compute the first value of softmax([{x0}, {x1}, {x2}]) (3 decimals).",
        },
        "qz_hint_softmax_by_hand": {
            "zh": "用 e^{x0} 除以 (e^{x0} + e^{x1} + e^{x2})。",
            "en": "e^{x0} ÷ (e^{x0} + e^{x1} + e^{x2}).",
        },
        "qz_spread_growth": {
            "zh": "d 从 {d} 增加到 {d2}，q·k 的标准差变为原来的几倍？",
            "en": "d grows from {d} to {d2}. By what factor does the standard deviation of q·k "
            "grow?",
        },
        "qz_hint_spread_growth": {
            "zh": "标准差是 √d：√({d2} ÷ {d})。",
            "en": "The std is √d: √({d2} ÷ {d}).",
        },
        "qz_scaled_score": {
            "zh": "d = {d}，原始分数是 {s}。缩放后的分数是多少？",
            "en": "d = {d} and a raw score is {s}. What is the scaled score?",
        },
        "qz_hint_scaled_score": {"zh": "{s} ÷ √{d}。", "en": "{s} ÷ √{d}."},
        "qz_causal_count": {
            "zh": "一句话有 {n} 个 token。因果掩码把 {n}×{n} 矩阵中多少个格子设为 −∞？",
            "en": "A sentence has {n} tokens. How many cells of the {n}×{n} matrix does a causal "
            "mask "
            "set to −∞?",
        },
        "qz_hint_causal_count": {
            "zh": "对角线以上的格子：{n} × ({n} − 1) ÷ 2。",
            "en": "The cells above the diagonal: {n} × ({n} − 1) ÷ 2.",
        },
        "qz_gradient": {
            "zh": "分数 [{x0}, {x1}, {x2}]，正确答案在位置 {t}（从 0 数）。交叉熵梯度 p − one-hot "
            "在位置 {t} 的值是多少？",
            "en": "Scores [{x0}, {x1}, {x2}]; the right answer is position {t} (counting from 0). "
            "What is the cross-entropy gradient p − one-hot at position {t}?",
        },
        "qz_hint_gradient": {
            "zh": "先算 softmax 得到 p_{t}，答案是 p_{t} − 1（一定是负数）。",
            "en": "Compute softmax to get p_{t}; the answer is p_{t} − 1 (always negative).",
        },
        "qz_uniform_variance": {
            "zh": "q、k 的每个分量独立、在 [−1, 1] 上均匀分布，d = {d}。Var(q·k) 是多少？",
            "en": "q and k have independent entries, uniform on [−1, 1], and d = {d}. What is "
            "Var(q·k)?",
        },
        "qz_hint_uniform_variance": {
            "zh": "每个分量方差 1/3，每个乘积方差 1/9，共 {d} 项：{d} ÷ 9。",
            "en": "Each entry has variance 1/3, each product 1/9, and there are {d} terms: {d} ÷ "
            "9.",
        },
        "qz_entropy_uniform": {
            "zh": "注意力平均分给 {n} 个字（每个 1/{n}）。这一行的熵是多少 nat？",
            "en": "Attention is spread evenly over {n} tokens (1/{n} each). What is the row's "
            "entropy "
            "in nats?",
        },
        "qz_hint_entropy_uniform": {
            "zh": "均匀分布的熵是 ln {n}。",
            "en": "A uniform row has entropy ln {n}.",
        },
        "qz_two_scores": {
            "zh": "两个分数相差 {delta}。较大的那个得到多少权重？",
            "en": "Two scores differ by {delta}. What weight does the larger get?",
        },
        "qz_hint_two_scores": {
            "zh": "1 ÷ (1 + e^−{delta})：只和差值有关。",
            "en": "1 ÷ (1 + e^−{delta}): only the difference matters.",
        },
    }
)


STRINGS.update(
    {
        # --- lab: heads, source, temperature ---
        "model_header": {"zh": "多头与来源", "en": "Heads and source"},
        "heads_label": {"zh": "头数", "en": "Heads"},
        "heads_help": {
            "zh": "把 d 维切成几份，每个头用 d ÷ 头数 维，分别做注意力、各自除以 √d_k。只能选 d "
            "的约数。",
            "en": "How many slices d is cut into: each head uses d ÷ heads dimensions, attends "
            "on its "
            "own, and divides by its own √d_k. Only divisors of d can be chosen.",
        },
        "head_label": {"zh": "显示第几个头", "en": "Head shown"},
        "head_help": {
            "zh": "大热力图和柱状图显示这个头；下面的网格显示所有头。",
            "en": "The large heatmaps and bars show this head; the grid below shows every head.",
        },
        "heads_preset_768": {
            "zh": "BERT-base：768 维 × 12 头",
            "en": "BERT-base: 768 wide, 12 heads",
        },
        "heads_preset_1536": {"zh": "1,536 维 × 16 头", "en": "1,536 wide, 16 heads"},
        "heads_reset": {
            "zh": "{heads} 个头不能整除 d = {d}，已改为 1 个头。",
            "en": "{heads} heads do not divide d = {d}, so 1 head is used.",
        },
        "source_label": {"zh": "Q、K、V 从哪里来", "en": "Where Q, K, V come from"},
        "source_random": {"zh": "随机（独立同分布）", "en": "Random (i.i.d.)"},
        "source_embedding": {"zh": "字向量 × 权重矩阵", "en": "Embeddings × weights"},
        "source_help": {
            "zh": "随机：每个位置一组随机数。字向量：每个字一个固定的向量（可加位置编码），再乘 "
            "W_Q、"
            "W_K、W_V。",
            "en": "Random: random numbers per position. Embeddings: each character has a fixed "
            "vector "
            "(plus positions, if on), multiplied by W_Q, W_K, W_V.",
        },
        "position_label": {"zh": "加上位置编码", "en": "Add positional encoding"},
        "position_help": {
            "zh": "正弦位置编码（第五篇）：同一个字在不同位置得到不同的向量。",
            "en": "Sinusoidal positions (the series' 5th article): the same character at different "
            "places gets different vectors.",
        },
        "temperature_label": {"zh": "温度 T", "en": "Temperature T"},
        "temperature_help": {
            "zh": "softmax 之前再除以 T：T < 1 更尖锐，T > 1 更平缓。T = 1 不变。",
            "en": "Scores are divided by T before softmax: T < 1 sharpens, T > 1 flattens, "
            "T = 1 changes nothing.",
        },
        "head_shown": {
            "zh": "显示第 {head} 个头（共 {heads} 个），每个头 d_k = {d_k} 维。",
            "en": "Showing head {head} of {heads}; each head has d_k = {d_k} dimensions.",
        },
        "temperature_why": {
            "zh": "再除以温度 T = {temperature}。√d 本身就是一个固定的温度："
            "它抵消了维度带来的放大。",
            "en": "Also divided by the temperature T = {temperature}. √d is itself a fixed "
            "temperature: it cancels the growth that comes with d.",
        },
        "heads_title": {"zh": "所有头的注意力权重", "en": "Every head's attention weights"},
        "heads_why": {
            "zh": "每个头看的是 Q、K 的不同切片，所以关注的模式不同。最后一张是所有头的平均。",
            "en": "Each head sees a different slice of Q and K, so each attends differently. The "
            "last "
            "map is the heads' average.",
        },
        "heads_average_title": {"zh": "所有头的平均", "en": "The heads' average"},
        "heads_group": {
            "zh": "共 {heads} 个头，这里画出第 {first}–{last} 个"
            "（所选的头所在的一组，每组最多 16 个）；"
            "选另一个头即可看它那一组。平均仍是全部 {heads} 个头的平均。",
            "en": "There are {heads} heads; this grid draws heads {first}–{last} (the group of up "
            "to 16 that holds the chosen head): choose another head to see its group. The average "
            "is still over all {heads} heads.",
        },
        "output_concat": {
            "zh": "这一层的输出是把 {heads} 个头的输出（各 {d_k} 维）拼接起来：{n} × {d}。"
            "上面显示的是第 {head} 个头的部分。",
            "en": "The layer's output is the {heads} heads' outputs ({d_k} dimensions each) side "
            "by "
            "side: {n} × {d}. Above is head {head}'s part.",
        },
        "projection_title": {"zh": "看看 X、W 和投影", "en": "Show X, W and the projections"},
        "projection_why": {
            "zh": "X = 字向量{plus}，每个字一行、宽 d_model = {d_model}"
            "（不随 d 变化，和真实模型一样），"
            "Q = X·W_Q，K = X·W_K，V = X·W_V，W 的形状是 {d_model} × {d}。"
            "W 的元素方差为 1/d_model，所以投影后方差仍约为 1。"
            "（字向量见系列第四篇，位置编码见第五篇。）",
            "en": "X = embeddings{plus}: one row per character, d_model = {d_model} wide whatever "
            "d is (as in a real model); Q = X·W_Q, K = X·W_K, V = X·W_V, each W {d_model} × {d}. "
            "The weights have variance 1/d_model, so the projections keep a variance of about 1. "
            "(Embeddings are the series' 4th article; positional encoding its 5th.)",
        },
        "projection_plus": {
            "zh": " + 位置编码（再除以 √1.5 保持方差 1）",
            "en": " + positions (÷ √1.5 to keep variance 1)",
        },
        "matrix_x": {"zh": "X（输入）", "en": "X (input)"},
        "matrix_w_q": {
            "zh": "W_Q（前 8 列；d ≤ 8 时为全部）",
            "en": "W_Q, first 8 columns (all when d ≤ 8)",
        },
        "matrix_w_k": {
            "zh": "W_K（前 8 列；d ≤ 8 时为全部）",
            "en": "W_K, first 8 columns (all when d ≤ 8)",
        },
        "matrix_w_v": {
            "zh": "W_V（前 8 列；d ≤ 8 时为全部）",
            "en": "W_V, first 8 columns (all when d ≤ 8)",
        },
        "repeats_title": {"zh": "重复的字", "en": "Repeated characters"},
        "repeats_same": {
            "zh": "“{token}” 出现在位置 {places}：它们的权重行完全相同。没有位置信息，"
            "模型分不清它们。",
            "en": "“{token}” stands at positions {places}: their weight rows are identical. "
            "Without "
            "positions the model cannot tell them apart.",
        },
        "repeats_differ": {
            "zh": "“{token}” 出现在位置 {places}：它们的权重行不同（最大差 {gap}）。",
            "en": "“{token}” stands at positions {places}: their weight rows differ (by up to "
            "{gap}).",
        },
        "repeats_try": {
            "zh": "试试：来源选“字向量 × 权重矩阵”，关掉位置编码，两行就变得一模一样。",
            "en": "Try it: choose “Embeddings × weights” and turn positions off: the rows become "
            "identical.",
        },
        "matrix_output_all": {"zh": "输出（所有头拼接）", "en": "output (all heads)"},
        "axis_dimension_short": {"zh": "维", "en": "dim"},
        "head_title": {"zh": "头 {head}", "en": "head {head}"},
    }
)


STRINGS.update(
    {
        # --- accessibility: alt text of every chart, by key (or key family) ---
        "alt_scores_heatmap": {
            "zh": "热力图：原始分数 QKᵀ，行是查询字，列是键字。",
            "en": "Heatmap of the raw scores QKᵀ: rows are query tokens, columns key tokens.",
        },
        "alt_scaled_heatmap": {
            "zh": "热力图：除以 √d 之后的分数。",
            "en": "Heatmap of the scores after dividing by √d.",
        },
        "alt_masked_heatmap": {
            "zh": "热力图：掩码后的分数，被屏蔽的格子为灰色（−∞）。",
            "en": "Heatmap of the masked scores; masked cells are grey (−∞).",
        },
        "alt_weights_heatmap": {
            "zh": "热力图：softmax 注意力权重，每行和为 1；点击一行可选中它。",
            "en": "Heatmap of the softmax attention weights, each row summing to 1; click a row "
            "to select it.",
        },
        "alt_row_bars": {
            "zh": "柱状图：选中的行缩放与不缩放的注意力权重并排比较。",
            "en": "Bar chart of the selected row's weights, scaled and unscaled side by side.",
        },
        "alt_row_multiples": {
            "zh": "小柱状图：每一行的注意力权重。",
            "en": "Small bar charts of every row's attention weights.",
        },
        "alt_output_contributions": {
            "zh": "热力图：每个字对输出的贡献（权重 × V），最后一行是输出。",
            "en": "Heatmap of each token's contribution (weight × V) to the output; the last row "
            "is the output.",
        },
        "alt_heads_grid": {
            "zh": "小热力图：每个头的注意力权重。",
            "en": "Small heatmaps of every head's attention weights.",
        },
        "alt_heads_average": {
            "zh": "热力图：所有头注意力权重的平均。",
            "en": "Heatmap of the heads' average attention weights.",
        },
        "alt_projection": {
            "zh": "热力图：输入 X、权重矩阵或投影的前几维。",
            "en": "Heatmap of the first dimensions of the input X, a weight matrix or a "
            "projection.",
        },
        "alt_softmax_bars": {
            "zh": "柱状图：左边是 softmax 的输入，右边是输出概率。",
            "en": "Bar charts: softmax's inputs on the left, output probabilities on the right.",
        },
        "alt_gradient_bars": {
            "zh": "柱状图：交叉熵梯度 p − one-hot。",
            "en": "Bar chart of the cross-entropy gradient p − one-hot.",
        },
        "alt_jacobian_heatmap": {
            "zh": "热力图：softmax 的 Jacobian 矩阵。",
            "en": "Heatmap of the softmax Jacobian.",
        },
        "alt_variance_chart": {
            "zh": "对数坐标图：Var(q·k) 随 d 增长，缩放后保持在 1。",
            "en": "Log–log chart: Var(q·k) grows with d, and stays at 1 after scaling.",
        },
        "alt_dot_histogram": {
            "zh": "直方图：q·k 缩放前后的分布。",
            "en": "Histograms of q·k before and after scaling.",
        },
        "alt_saturation": {
            "zh": "折线图：softmax 行的统计量随 d 的变化，缩放与不缩放。",
            "en": "Line chart of a softmax row statistic against d, scaled and unscaled.",
        },
        "alt_sharpening_animation": {
            "zh": "动画柱状图：同一行注意力随 d 增大变尖。",
            "en": "Animated bar chart of one attention row sharpening as d grows.",
        },
        "alt_step": {
            "zh": "热力图：这一步的矩阵，行是字。",
            "en": "Heatmap of this step's matrix, one row per token.",
        },
        # --- presenter mode and sharing ---
        "present_label": {"zh": "投影模式（大字体）", "en": "Presenter mode (large)"},
        "present_help": {
            "zh": "字体和图都变大，侧边栏收起，适合投影。",
            "en": "Larger text and figures, sidebar collapsed: for a projector.",
        },
        "share_title": {
            "zh": "🔗 这个视图的链接（点右侧按钮复制）",
            "en": "🔗 Link to this view (copy with the button on the right)",
        },
        "download_zip": {
            "zh": "下载全部（设置 + 所有矩阵，zip）",
            "en": "Download everything (settings + every matrix, zip)",
        },
    }
)


def t(key: str, lang: str, /, **fields: object) -> str:
    """The string ``key`` in ``lang`` ("zh" or "en"), with ``{fields}`` filled in."""
    text = STRINGS[key][lang if lang in ("zh", "en") else "zh"]
    return text.format(**fields) if fields else text
