"""ICU root collation data for :mod:`pi_lsp.tools.collation` (observed, not copied).

Measured with ICU 78.2 through Node.js ``Intl.Collator("en-US")`` (the collator behind Pi's
``localeCompare``): characters were sorted and grouped by comparing them at primary,
secondary and tertiary strength. Only characters that a lowercased file name can contain and
that do not simply decompose (NFKD) into other characters are listed; everything else is
derived at run time.
"""

from __future__ import annotations

#: One character per primary weight, lowest first: whitespace, punctuation, symbols, currency,
#: digits, then Latin, Greek and Cyrillic letters.
PRIMARY_ORDER = (
    "\x09\x0a\x0b\x0c\x0d\x85\u2028\u2029\x20‾_‗-‐‒–—―⁓〜〰゠・,、;⁏:!¡?¿‽.。·⁕⁖⁘⁙"
    "⁚⁛⁜⁝⁞'‹›\"«»()[]{}⁅⁆〈〉《》「」『』【】〔〕〖〗〘〙〚〛‖§¶"
    "⁋@*⁎⁑/\\&⁊#%‰‱†‡•‣‧⁃⁌⁍′‵〃〽‸※‿⁔⁀⁐⁁⁂`´˜^¯˘˙"
    "¨˚˝¸˛゛゜ʹ͵ʺ˂˃˄˅ˆˇˈˉˊˋˌˍˎˏ˒˓˔˕˖˗˞˟˥˦˧˨˩˪˫ˬ"
    "˭˯˰˱˲˳˴˵˶˷˸˹˺˻˼˽˾˿꜠꜡ꞈ꞉꞊°҂©®←→↑↓↔↕↖↗↘↙↜↝↞"
    "↟↠↡↢↣↤↥↦↧↨↩↪↫↬↭↯↰↱↲↳↴↵↶↷↸↹↺↻↼↽↾↿⇀⇁⇂⇃⇄⇅⇆⇇"
    "⇈⇉⇊⇋⇌⇐⇑⇒⇓⇔⇕⇖⇗⇘⇙⇚⇛⇜⇝⇞⇟⇠⇡⇢⇣⇤⇥⇦⇧⇨⇩⇪⇫⇬⇭⇮⇯⇰⇱⇲"
    "⇳⇴⇵⇶⇷⇸⇹⇺⇻⇼⇽⇾⇿϶+±÷×<=>¬|¦~⁒⁄〄〒〓〠〷〾〿ːˑ々〻〱〳"
    "〵ゝーヽ¤¢$£¥₠₡₢₣₤₥₦₩₪₫€₭₮₯₰₱₲₳₴₵₶₷₸₹₺₻₼₽₾₿⃀"
    "0123456789aⱥꞻɐɑɒbʙƀꞗɓƃꞵcȼꞓꞔƈɕꜿdʥʤꟈɖɗƌȡꝱẟ"
    "eɇⱸǝⱻəɛɘɚɜɝɞʚɤfʩꜰꞙƒꟻgꟑɡɢǥɠʛꝿɣƣhʜƕꞕɦⱨⱶꟶꜧɧ"
    "ʻʽiıɪꟾꟷɨꞽɩjȷɉʝɟʄkƙⱪꝁꝃꝅʞlʟꝇꝉƚⱡɫɬɭꞎȴꝲɮꞁ\ua7dbƛʎ"
    "mɱꟽꟿꝳnɴɲƞꞑɳȵꝴŋoɶɔꝍⱺɵꝋɷꞷȣpꝑƥꝓꝕꟼɸⱷqꞯꝗꝙʠɋĸr"
    "ʀɍɹɺɻⱹɼɽɾɿʁꝵꝶꝝsꜱꟊ\ua7cdʂȿꟗẜẝʃƪʅʆtʨʧŧⱦƫƭʈȶꝷʇuʉ"
    "ꞹꞿɥʮʯɯꟺɰʊvꝟʋⱱⱴỽʌwⱳʍxyʏɏƴỿȝzƶȥʐʑɀⱬꝣʒƹƺʓþꟓ"
    "ꝥꝧƿꟕꝩꝫꝭꝯꝸƻꜫꜭꜯƨƽƅʔɂˀʼˮʾꜣꞌꞏʕ\ua7cfʿˁꜥʡʢʖǀǁǂǃʗʘʬ"
    "ʭαβγδεϝͷϛζͱηθιϳκλμνξοπϻϟϙρϼσͼͻͽτυφχψωϡͳϸ"
    "ϣϥϧϩϫϭϯаәӕбвгғӻҕӷдђҙеєжҗзѕӡиҋійјкқӄҡҟҝлӆ"
    "љмӎнӊңӈҥњоөпҧҁрҏсҫтҭћуүұѹфхӽӿҳһѡѿѽѻцҵчҷӌ"
    "ҹҽҿџшщъыьҍѣэюяѥѧѫѩѭѯѱѳѵҩӏ〆〼"
)

#: Combining marks by secondary weight, lowest first (code points).
MARK_ORDER = (
    0x0332,
    0x0313,
    0x0314,
    0x0301,
    0x0300,
    0x0306,
    0x0302,
    0x030C,
    0x030A,
    0x0342,
    0x0308,
    0x030B,
    0x0303,
    0x0307,
    0x0338,
    0x0327,
    0x0328,
    0x0304,
    0x030D,
    0x030E,
    0x0312,
    0x0315,
    0x031A,
    0x033D,
    0x033E,
    0x033F,
    0x0346,
    0x034A,
    0x034B,
    0x034C,
    0x0350,
    0x0351,
    0x0352,
    0x0357,
    0x035B,
    0x035D,
    0x035E,
    0x0316,
    0x0317,
    0x0318,
    0x0319,
    0x031C,
    0x031D,
    0x031E,
    0x031F,
    0x0320,
    0x0329,
    0x032A,
    0x032B,
    0x032C,
    0x032F,
    0x0333,
    0x033A,
    0x033B,
    0x033C,
    0x0347,
    0x0348,
    0x0349,
    0x034D,
    0x034E,
    0x0353,
    0x0354,
    0x0355,
    0x0356,
    0x0359,
    0x035A,
    0x035C,
    0x035F,
    0x0362,
    0x0336,
    0x0337,
    0x0335,
    0x0305,
    0x0309,
    0x030F,
    0x0310,
    0x0311,
    0x031B,
    0x0321,
    0x0322,
    0x0323,
    0x0324,
    0x0325,
    0x0326,
    0x032D,
    0x032E,
    0x0330,
    0x0331,
    0x0334,
    0x0339,
    0x0345,
    0x0358,
    0x0360,
    0x0361,
    0x0363,
    0x0368,
    0x0369,
    0x0364,
    0x036A,
    0x0365,
    0x036B,
    0x0366,
    0x036C,
    0x036D,
    0x0367,
    0x036E,
    0x036F,
)

#: Characters that sort as other characters plus an accent-like secondary weight:
#: character -> (base characters, position of that weight among MARK_ORDER).
SECONDARY_VARIANTS: dict[str, tuple[str, int]] = {
    "ſ": ("s", 94),
    "ẛ": ("s\u0307", 94),
    "‘": ("'", 94),
    "’": ("'", 94),
    "‚": ("'", 94),
    "‛": ("'", 94),
    "“": ('"', 94),
    "”": ('"', 94),
    "„": ('"', 94),
    "‟": ('"', 94),
    "〝": ('"', 94),
    "〞": ('"', 94),
    "〟": ('"', 94),
    "΅": ("¨", 3),
    "〲": ("〱", 71),
    "〴": ("〳", 71),
    "ꞛ": ("a", 11),
    "ꟁ": ("a", 17),
    "đ": ("d", 71),
    "ð": ("d", 94),
    "ꝺ": ("d", 94),
    "ꝼ": ("f", 94),
    "ꞡ": ("g", 71),
    "ħ": ("h", 71),
    "ꞣ": ("k", 71),
    "ł": ("l", 71),
    "ꞥ": ("n", 71),
    "ꞝ": ("o", 11),
    "ø": ("o", 14),
    "ꞧ": ("r", 71),
    "ꞃ": ("r", 94),
    "ꝛ": ("r", 94),
    "ꞩ": ("s", 71),
    "ꞅ": ("s", 94),
    "ꟙ": ("s", 94),
    "ꞇ": ("t", 94),
    "ꞟ": ("u", 11),
    "ꟃ": ("w", 94),
    "ґ": ("г", 94),
}

#: Characters that differ from other characters only at the tertiary level:
#: character -> (base characters, tertiary rank among the variants).
TERTIARY_VARIANTS: dict[str, tuple[str, int]] = {
    "΄": ("´", 1),
    "〇": ("0", 1),
    "〡": ("1", 1),
    "〢": ("2", 1),
    "〣": ("3", 1),
    "〤": ("4", 1),
    "〥": ("5", 1),
    "〦": ("6", 1),
    "〧": ("7", 1),
    "〨": ("8", 1),
    "〩": ("9", 1),
    "ꜳ": ("aa", 1),
    "ꜵ": ("ao", 1),
    "ꜷ": ("au", 1),
    "ꜹ": ("av", 1),
    "ꜽ": ("ay", 1),
    "ȸ": ("db", 1),
    "ʣ": ("dz", 1),
    "ỻ": ("ll", 1),
    "ʪ": ("ls", 1),
    "ʫ": ("lz", 1),
    "ꝏ": ("oo", 1),
    "₧": ("pts", 1),
    "ȹ": ("qp", 1),
    "ƾ": ("ts", 1),
    "ʦ": ("ts", 1),
    "ꜩ": ("tz", 1),
    "ꝡ": ("vy", 1),
    "ƍ": ("zw", 1),
    "ͺ": ("ι", 1),
    "ϗ": ("και", 1),
    "ς": ("σ", 1),
}

#: Letters that sort as two letters with an accent-like mark between them:
#: character -> (letters, position of the mark among MARK_ORDER).
EXPANSIONS: dict[str, tuple[str, int]] = {
    "æ": ("ae", 97),
    "ꜻ": ("av", 105),
    "œ": ("oe", 97),
    "ß": ("ss", 103),
}

#: Position among MARK_ORDER of the weight a middle dot gets right after an "l" (ICU reads
#: "l·" as the Catalan letter ŀ).
CATALAN_DOT_POSITION = 94
