"""How the mock reads a prompt for permission to give up: a small reader of intent, by rules.

    >>> intent = read_intent("If a few searches come back empty, say you couldn't find it.")
    >>> intent.allowed, intent.quote, intent.condition.text
    (True, "say you couldn't find it", 'If a few searches come back empty')

A model reading an instruction asks four questions, and so does this reader, clause by clause:

- **Is it about giving up?** Giving up, stopping, saying the star is not there, searching on,
  having to find it: the lexicon below, English and Brazilian Portuguese, accents or not.
- **Who is addressed, and is it an instruction?** "You may give up" and "Give up" are; "Some
  models give up too early" (someone else), "Last time you gave up" (the past) and "Why would
  you give up?" (a question) are not.
- **Is it negated?** Each negative word before the verb flips the meaning once: "don't give up"
  forbids; "don't hesitate to say you couldn't find it" and "it's not forbidden to give up"
  allow; "you don't have to keep searching" allows.
- **Is it conditional?** "If a few searches come back empty", "after 2 empty searches",
  "depois de procurar em todas as áreas" say when. "Don't stop until you have searched every
  area" allows giving up after that; "don't stop until you find it" forbids.

The last clause that decides wins, as a model follows the latest instruction: "Never give up.
Actually, if every area is empty, you may say so." allows. A statement that the star may not be
there is a hint: it allows only if no instruction, before or after it, decides.

Rules, not a language model: deterministic, no model file, a fraction of a millisecond per
prompt (bench/run.py, section 8). The result quotes the words it took as permission or as a
refusal, so the persona can quote them back and an exercise can say what was read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from ..i18n import N_

Stance = Literal["allow", "forbid", "none"]

# ---- 1. what the reader returns --------------------------------------------------------------


@dataclass(frozen=True)
class Condition:
    """When the permission applies, in the prompt's own words."""

    text: str
    """The exact words ("If a few searches come back empty", "after 2 empty searches")."""
    searches: int | None = None
    """Give up after this many empty searches; None: once every area came back without the star."""


@dataclass(frozen=True)
class Reading:
    """One clause about giving up, and what the reader took it to mean."""

    stance: Stance
    quote: str
    """The clause's exact words in the prompt."""
    why: str
    """A key of WHY: what kind of clause it is."""
    condition: Condition | None = None
    strong: bool = True
    """False for a hint ("the star may not be there"): any instruction outweighs it."""


@dataclass(frozen=True)
class Intent:
    """What the conversation says about giving up, in which words, on which condition."""

    allowed: bool
    """Whether the model may stop and say it could not find the star."""
    quote: str
    """The words taken as permission, or as a refusal; "" when nothing decided."""
    condition: Condition | None
    """When to give up (with `allowed`); None means once every area came back without the star."""
    language: str
    """The conversation's language, "en" or "pt": the one the persona answers in."""
    why: str = ""
    """The deciding clause's kind, a key of WHY ("permission", "refusal", ...); "" if none."""
    readings: tuple[Reading, ...] = ()
    """Every clause read as being about giving up, in order, deciding or not."""

    @property
    def refused(self) -> bool:
        """Whether the deciding words forbid giving up (rather than not mention it)."""
        return not self.allowed and bool(self.quote)

    @property
    def searches(self) -> int | None:
        """Give up after this many empty searches; None: once every area was searched."""
        return self.condition.searches if self.allowed and self.condition else None


WHY = {
    "permission": N_("permission to give up"),
    "report": N_("a request to say so when the star cannot be found"),
    "no obligation": N_("it does not have to keep searching"),
    "failure accepted": N_("not finding the star is accepted"),
    "limit": N_("permission to give up once a condition is met"),
    "absence possible": N_("a hint that the star may not be there"),
    "refusal": N_("a refusal to let it give up"),
    "keep searching": N_("an order to keep searching"),
    "must find": N_("an order to find the star, whatever it takes"),
    "description": N_("a description of what someone else does, not an instruction"),
    "past": N_("what happened before, not an instruction for now"),
    "question": N_("a question, not an instruction"),
    "success": N_("what to do once the star is found, not when it cannot be"),
    "nothing to report": N_("a request to report, but not for when the star cannot be found"),
}
"""What each kind of clause means, for a learner: `_()` translates it where it is shown."""

# ---- 2. the words ----------------------------------------------------------------------------
# Every pattern runs on folded text (fold(): lower case, no accents, straight quotes).

_FIND = r"(?:find|finding|found|locate|locating|located|spot|spotted|see|get|encontr\w*|ach\w*|localiz\w*)"
_CANNOT = (
    r"(?:could ?n'?t|could not|can ?'?t|cannot|can not|did ?n'?t|did not|do ?n'?t|do not|does ?n'?t|"
    r"does not|won'?t|will not|were unable to|was unable to|are unable to|is unable to|unable to|"
    r"failed to|fail to|fails to|failing to|could never|never|have ?n'?t|has ?n'?t|have not|has not|"
    r"had not|had ?n'?t|weren'?t able to|wasn'?t able to|not able to|not)"
)
_FAILURE = re.compile(
    "|".join(
        [
            rf"\b{_CANNOT}\s+(?:(?:yet|really|actually|manage to|be able to|possibly|even|still|be)\s+)?{_FIND}",
            (
                r"\b(?:couldn'?t|could not|didn'?t|did not|failed|were unable|was unable|can'?t|cannot|"
                r"weren'?t able|wasn'?t able)(?: (?:do it|manage|make it))?\s*$"
            ),
            r"\bnot[ _-]?found\b",
            r"\bno (?:star|luck|results?|sign of (?:it|the star))\b",
            r"\bnothing(?: (?:is|was|has been|gets|got|can be))? (?:found|there|(?:turns?|turned|came|comes|shows?|showed) up)\b",
            r"\b(?:found|find|finds|turn up|turns up|get|gets) nothing\b",
            r"\b(?:is|'s|are|was) (?:not|n't|nowhere)\b",
            r"\b(?:is|are|was)n'?t\b",
            r"\bmissing\b",
            r"\babsent\b",
            r"\bdoes ?n'?t exist\b",
            r"\bdoes not exist\b",
            r"\bno such\b",
            r"\bthere (?:is|'s|was) no\b",
            r"\bthere (?:is|was)n'?t\b",
            r"\bthere'?s no\b",
            r"\bfail(?:ed|ure|s|ing)?\b",
            r"\bdefeat\b",
            r"\bg[ai]ve up\b",
            r"\bgiving up\b",
            r"\bempty(?:[ -]handed)?\b",
            r"\bunsuccessful\w*\b",
            r"\bin vain\b",
            r"\bnone\b",
            r"\bnowhere\b",
            r"\bwithout (?:success|luck|result|finding|the star|it)\b",
            r"\bto no avail\b",
            r"\b(?:with|com|sem) nothing\b",
            r"\b(?:com|sem) nada\b",
            r"\b(?:stop|stopping|quit|quitting) (?:searching|looking|trying)\b",
            r"\bquit\b",
            r"\b(?:pointless|useless|hopeless|futile|no use|no point)\b",
            r"\b(?:inutil|sem sentido|nao adianta|nao der certo)\b",
            r"\b(?:stuck|out of luck|out of ideas|dead end|go(?:es)? wrong|went wrong)\b",
            r"\b(?:preso|travad[oa]|empacad[oa]|sem ideias|(?:der|deu|dar) errado)\b",
            r"\b(?:do|does|did)(?:n'?t| not) (?:have|hold|contain|hide|show) (?:it|the star|a star|one)\b",
            r"\bno (?:area|block|search|place)s? (?:has|have|holds?|contains?|hides?|shows?|turns? up|returns?)\b",
            # Portuguese
            r"\bnao (?:\w+ ){0,3}?(?:encontr|ach|localiz|ve\b|vi\b|viu\b|consegu)\w*",
            (
                r"\bnao (?:esta|estava|esteja|estiver|estivesse|existe|existir|exista|existia|ha|houver|haja|havia|"
                r"tem|tinha|tiver|aparece|apareceu|aparecer|deu|der)\b"
            ),
            r"\bsem (?:sucesso|estrela|resultado|sorte|exito|achar|encontrar)\b",
            r"\bnada\b",
            r"\bnenhuma estrela\b",
            r"\bfracass\w*",
            r"\bfalh(?:a|ou|ei|aram|ar|as|arem)\b",
            r"\bderrota\b",
            r"\bdesist\w*",
            r"\bmaos vazias\b",
            r"\bvazi[ao]s?\b",
            r"\bausente\b",
            r"\binexistente\b",
            r"\bem vao\b",
        ]
    )
)
"""Words that say the star was not found: a report's content, or a condition's."""

_SUCCESS = re.compile(rf"\b{_FIND}\b|\b(?:done|finished|succeed\w*|terminar|terminou|conseguir)\b")
_WHETHER = re.compile(
    r"\bwhether\b|\bif or not\b|\bor not\b|\beither way\b|\bsuccess or failure\b|"
    r"\bou nao\b|\bde qualquer (?:forma|jeito|maneira)\b|\bem ambos os casos\b"
)
_EXHAUSTED = re.compile(
    r"\b(?:every|each|all(?: the| of the| \w+)?|the whole|the entire) (?:areas?|places?|blocks?|level|"
    r"world|spots?|rooms?|zones?|regions?|options?)\b|\beverywhere\b|\beverything\b|\ball of them\b|"
    r"\brun(?:s|ning)? out\b|"
    r"\bran out\b|\bnowhere (?:else|left)\b|\bnothing (?:else |more )?(?:left|remains)\b|"
    r"\bno (?:more|other) (?:areas?|places?)\b|\bsearched (?:it )?all\b|\bexhaust\w*|\bthoroughly\b|"
    r"\btod[oa]s? (?:as |os )?(?:\w+ )?(?:areas?|lugares|blocos|cantos|partes|regioes|zonas|opcoes)\b|"
    r"\bem todo (?:lugar|canto|lado)\b|\btoda a fase\b|\bfase (?:toda|inteira)\b|\bcada area\b|"
    r"\bacabar(?:em)? (?:as )?(?:areas|opcoes|lugares)\b|\bnao (?:houver|sobrar|restar|tiver) mais\b|"
    r"\bpor toda (?:parte|a fase)\b|\btudo\b"
)

_NUMBER_WORDS = {
    "one": 1,
    "a single": 1,
    "single": 1,
    "two": 2,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "um": 1,
    "uma": 1,
    "uma unica": 1,
    "um unico": 1,
    "dois": 2,
    "duas": 2,
    "umas duas": 2,
    "uns dois": 2,
    "um par de": 2,
    "tres": 3,
    "quatro": 4,
    "cinco": 5,
    "seis": 6,
    "sete": 7,
    "oito": 8,
    "nove": 9,
    "dez": 10,
    "onze": 11,
    "doze": 12,
    "quinze": 15,
    "vinte": 20,
}
_NUMBER = (
    r"(?:\d{1,3}|" + "|".join(sorted(map(re.escape, _NUMBER_WORDS), key=len, reverse=True)) + ")"
)
_UNIT = (
    r"(?:searches|search|attempts?|tries|try|times?|goes|rounds?|looks?|calls?|turns?|areas?|"
    r"chances?|buscas?|tentativas?|procuras?|pesquisas?|vez|vezes|rodadas?|chamadas?|turnos?)"
)
_COUNT = re.compile(
    rf"(?<![\w-])(?P<all>(?:all|every|todas? as|todos os|as|the) )?(?:(?P<n>{_NUMBER})"
    rf"(?:(?: or | ou | to | a |-)(?P<m>{_NUMBER}))? (?:[\w']+ ){{0,2}}?(?P<unit>{_UNIT})|(?P<times>twice|thrice))\b"
)
_BUDGET = re.compile(
    rf"\b(?:at most|no more than|not more than|more than|a maximum of|maximum of|max(?:imum)?|up to|"
    rf"only|just|no maximo|nao mais (?:de|que)|mais (?:de|que)|ate|apenas|so|somente) (?:{_NUMBER}|twice|thrice)\b"
    rf"|\b(?:you have|you get|you've got|you only have|voce tem|tens|voce so tem) {_NUMBER}\b"
)

# The actions: each pattern is a verb, in any form a prompt uses, with a fixed object if it needs one.
_REPORT = (
    r"say|says|saying|said|tell(?:ing|s)?(?: me| us| the user| them)?|told|report(?:ing|s|ed)?|"
    r"repl(?:y|ying|ies|ied)|respond(?:ing|s|ed)?|answer(?:ing|s|ed)?|writ(?:e|ing|es)|wrote|"
    r"stat(?:e|ing|es)|admit(?:ting|s|ted)?|confess(?:ing|es|ed)?|acknowledg(?:e|ing|es|ed)|"
    r"declar(?:e|ing|es|ed)|conclud(?:e|ing|es|ed)|let (?:me|us|the user) know|letting (?:me|us) know|"
    r"inform(?:ing|s|ed)?(?: me| us)?|notify(?:ing)?(?: me| us)?|mention(?:ing)?|return(?:ing)?|"
    r"output(?:ting)?|print(?:ing)?|explain(?:ing)?|own up|be (?:honest|upfront|truthful|frank)|"
    r"dig[ao]m?|dizer|diz|dizendo|disse|disseram|fal(?:e|ar|a|em|ando)|falou|respond(?:a|er|e|am|endo)|"
    r"respondeu|avis(?:e|ar|a|em|ando)|avisou|inform(?:e|ar|a|em|ando)|informou|relat(?:e|ar|a|em)|"
    r"relatou|report(?:e|ar|a|em)|reportou|comuni(?:que|car|ca|quem)|comunicou|admit(?:a|ir|e|am|indo)|"
    r"admitiu|reconhe(?:ca|cer|ce|cam)|reconheceu|declar(?:e|ar|a)|declarou|conclu(?:a|ir|i)|concluiu|"
    r"escrev(?:a|er|e)|escreveu|me cont(?:e|ar|a)|contou|retorn(?:e|ar|a)|retornou|expli(?:que|car)|"
    r"confess(?:e|ar|a)|assum(?:a|ir)|seja (?:honesto|sincero|franco)|resposta"
)
_GIVE_UP = (
    r"give (?:it )?up|gives (?:it )?up|giving (?:it )?up|gave (?:it )?up|given up|quit(?:s|ting|ter|ters)?|"
    r"abandon(?:s|ing|ed)? (?:the |your |this )?(?:search|hunt|quest|task|it)|throw(?:s|ing)? in the towel|"
    r"call(?:s|ing|ed)? (?:it|the search|the hunt) (?:off|quits|a day)|"
    r"come back empty[ -]handed|return empty[ -]handed|bail(?:s|ing)? out|surrender(?:s|ing)?|"
    r"desist(?:a|ir|e|am|em|o|imos|indo|iu|iram|i|ia|iria|encia)|jog(?:ar|ue|a) a toalha|"
    r"entreg(?:ar|ue|a) os pontos|abandon(?:e|ar|a) (?:a )?(?:busca|procura|missao|tarefa)|"
    r"chega de procurar|dar(?: a busca)? por encerrad[ao]"
)
_STOP = (
    r"stop(?:s|ping|ped)?|halt(?:s|ing)?|cease|end(?:ing)? (?:the|your) (?:search|hunt|loop)|"
    r"finish(?:ing)? (?:the|your) search|"
    r"par(?:e|ar|em|ando|ou|aram|ei)|para de|interromp(?:a|er|e|am)(?: a busca| a procura)?|"
    r"encerr(?:e|ar|a|em) (?:a )?(?:busca|procura)|termin(?:e|ar|a) (?:a )?(?:busca|procura)|"
    r"finaliz(?:e|ar|a) (?:a )?(?:busca|procura)"
)
_CONTINUE = (
    r"keep (?:on )?(?:search|look|try|go|hunt|check|at it)\w*|keeps (?:search|look|try)\w*|"
    r"continu(?:e|es|ing)(?: (?:to )?(?:search|look|try|hunt)\w*)?|carry on|persist\w*|persever\w*|"
    r"search(?:ing)? (?:again|harder|once more|more|forever|endlessly|indefinitely|nonstop|non-stop)|"
    r"look(?:ing)? (?:again|harder|once more|more|forever|endlessly|indefinitely|nonstop|non-stop)|"
    r"try(?:ing)? (?:again|harder|once more|more|forever|endlessly|indefinitely|nonstop|non-stop)|"
    r"hunt(?:ing)? (?:again|harder|once more|more|forever|endlessly|indefinitely|nonstop|non-stop)|"
    r"go on (?:search|look)\w*|loop(?:ing)? (?:forever|endlessly)|search the same|"
    r"continu(?:e|ar|a|em)(?: a)? (?:procur|busc|tent|vasculh)\w*|sig(?:a|am) (?:procur|busc|tent)\w*|"
    r"insist(?:a|ir|e|am|indo)|persist(?:a|ir|e|am|indo)|fi(?:que|car|ca) (?:procur|busc|insist|tent)\w*|"
    r"procur(?:e|ar|a|em|ando) (?:de novo|novamente|outra vez|mais uma vez|para sempre|sem parar|eternamente)|"
    r"busc(?:ar|a|am|ando) (?:de novo|novamente|outra vez|mais uma vez|para sempre|sem parar|eternamente)|"
    r"busqu(?:e|em) (?:de novo|novamente|outra vez|mais uma vez|para sempre|sem parar)|"
    r"tent(?:e|ar|a|em|ando) (?:de novo|novamente|outra vez|mais uma vez|para sempre|sem parar|eternamente)"
)
_SEARCH = r"search|look|hunt|try|procur(?:e|ar|a)|busqu?(?:e|ar|a)|vasculh(?:e|ar|a)|tent(?:e|ar|a)"
_MUST_FIND = r"find(?:ing)?|locat(?:e|ing)|encontr(?:ar|e|a)|ach(?:ar|e|a)|localiz(?:ar|e|a)"
_ACCEPT_FAILURE = (
    r"not (?:to )?(?:find|finding|locate|locating)(?: (?:it|the star|them))?|not being able to find|"
    r"fail(?:ing|ure)? to (?:find|locate)(?: (?:it|the star|them))?|failing|failure|fail|to fail|"
    r"come up empty|end up empty[ -]handed|"
    r"(?:end|finish|stop|leave|come back|go home)(?: \w+)? without (?:finding (?:it|the star)|the star|it)|"
    r"(?:terminar|acabar|voltar|sair|parar|termine|acabe|volte|saia|pare) sem (?:encontrar|achar|a estrela)\w*|"
    r"nao (?:encontrar|achar|localizar|conseguir)(?: (?:a estrela|encontra-la|acha-la))?|falhar|fracassar|"
    r"ficar sem a estrela"
)
_GIVE_UP_VERB = re.compile(rf"\b(?:{_GIVE_UP})\b")
_GIVING_UP_OR_SAYING = re.compile(rf"\b(?:{_GIVE_UP}|{_STOP}|{_REPORT})\b")

_ACTIONS = re.compile(
    rf"\b(?:(?P<report>{_REPORT})|(?P<give_up>{_GIVE_UP})|(?P<cont>{_CONTINUE})|(?P<stop>{_STOP})|"
    rf"(?P<accept>{_ACCEPT_FAILURE})|(?P<find>{_MUST_FIND})|(?P<search>{_SEARCH}))\b"
)
_ABSENCE = re.compile(
    r"\bstar (?:may|might|could|can) (?:not|n't)\b|\b(?:may|might|could) (?:not )?be no star\b|"
    r"\bthere (?:might|may|could) not be\b|\b(?:maybe|perhaps) (?:there is no|the star is not|the star isn'?t)\b|"
    r"\b(?:it'?s|it is) possible (?:that )?(?:there is no|the star (?:is not|isn'?t|does not|doesn'?t))\b|"
    r"\bstar (?:is not|isn'?t|does not|doesn'?t) (?:exist|there|here|in (?:this|the) level)\b|"
    r"\bthere is no star\b|\b(?:may|might) not (?:exist|be there|be here|be in)\b|"
    r"\bestrela pode nao (?:estar|existir|haver)\b|\bpode ser que (?:a estrela )?nao (?:haja|tenha|exista|esteja)\b|"
    r"\btalvez (?:a estrela )?nao (?:haja|exista|esteja|tenha)\b|\bpode nao (?:haver|existir|ter) (?:uma )?estrela\b|"
    r"\b(?:a )?estrela nao (?:esta|existe) (?:nesta|na|aqui)\b|\bnao ha estrela\b|\bpode nao estar\b"
)

_PAST = re.compile(
    r"(?:gave|given|quitted|stopped|said|told|reported|replied|responded|answered|wrote|stated|"
    r"admitted|confessed|declared|concluded|returned|halted|abandoned|kept|continued|persisted|"
    r"desistiu|desistiram|desisti|desistimos|desistia|desistiam|parou|pararam|parei|disse|disseram|"
    r"falou|respondeu|avisou|informou|relatou|reportou|admitiu|reconheceu|declarou|concluiu|"
    r"escreveu|contou|retornou|continuou|insistiu|abandonou|encerrou|interrompeu)\b"
)
_THIRD_PERSON = re.compile(
    r"(?:gives|quits|stops|says|tells|reports|replies|responds|answers|writes|admits|keeps|"
    r"continues|halts|persists|desistem|param|dizem|falam|respondem|avisam|continuam|insistem)\b"
)
_PERFECT = re.compile(r"\b(?:had|have|has|'ve|was|were|would have|tinha|tinham|havia)\s*$")

# Who is addressed: the last subject before the verb. Imperatives have none.
_YOU = re.compile(
    r"\b(?:you|you'?re|you'?ll|you'?ve|you'?d|yourself|we|we'?re|let'?s|voce|voces|vc|tu|"
    r"te|lhe|a gente)\b"
)
_OTHERS = re.compile(
    r"\b(?:models?|agents?|assistants?|llms?|bots?|ais|people|users?|humans?|players?|searchers?|"
    r"systems?|persons?|he|she|they|someone|somebody|everyone|everybody|others|i|i'?m|i'?ve|i'?d|"
    r"loopboros|modelos?|agentes?|assistentes?|pessoas?|ele|ela|eles|elas|alguem|todo mundo|"
    r"usuarios?|jogadores?|outros|eu)\b"
)
_MODAL_AFTER = re.compile(
    r"\b(?:should|must|may|can|could|are allowed|is allowed|are free|deve|devem|"
    r"pode|podem|precisa|precisam)\b"
)

# Before the verb: each negative word flips the meaning once ("don't hesitate to" flips twice).
_NEGATIVE = re.compile(
    r"\b(?:not|no|never|nor|neither|none|nothing|nobody|no one|without|\w+n't|cannot|"
    r"(?:do|does|did|is|are|was|were|ca|wo|should|would|could|must|have|has|had|need)nt|"
    r"forbid\w*|prohibit\w*|banned?|disallow\w*|unacceptable|unallowed|wrong|bad|mistake|shame\w*|"
    r"embarrass\w*|penal\w*|punish\w*|blame\w*|fault|mad|angry|upset|disappoint\w*|problem|issue|"
    r"harm|hesitat\w*|afraid|scared|fear|shy|reluctant|worr\w*|avoid\w*|refrain|refus\w*|forget|mind|"
    r"crime|sin|disgrace|lazy|weak\w*|coward\w*|pathetic|unhelpful|useless|prevent\w*|against|"
    r"stop you from|keep you from|"
    r"out of the question|last thing|"
    r"nao|nunca|jamais|nem|nenhum|nenhuma|nada|sem|proibid\w*|vedad\w*|errad\w*|feio|vergonha|mal|"
    r"hesit\w*|medo|receio|evit\w*|recus\w*|problema|culp\w*|punid\w*|penaliz\w*|esque\w*|preocup\w*|"
    r"ninguem|pecado|fraco|fraqueza|pregui\w*|covard\w*|impe(?:d|c)\w*|contra|"
    r"hipotese alguma|forma alguma|modo algum|momento algum|caso algum|maneira alguma|"
    r"fora de (?:questao|cogitacao)|chatead\w*|bravo|zangad\w*)\b"
)
_PERMIT = re.compile(
    r"\b(?:may|might|can|could|allowed|permitted|permission|free|welcome|ok|okay|fine|alright|"
    r"all right|acceptable|accepted|option|legitimate|valid|good|better|best|great|wise|smart|"
    r"reasonable|sensible|right|correct|appropriate|normal|expected|encouraged|recommended|"
    r"prefer\w*|rather|want|wish|like|allow|permit|let|go ahead|feel|happy|glad|comfortable|cool|"
    r"understandable|forgivable|last resort|enough|up to you|your call|"
    r"pode|podes|poderia|podera|permitid\w*|liberad\w*|autorizad\w*|permissao|livre|vontade|"
    r"tudo bem|bem|certo|aceitave\w*|aceit\w*|valid\w*|opcao|tranquil\w*|melhor|bom|boa|quero|"
    r"queremos|prefiro|gostaria|deixo|deixamos|fique|sinta|legal|razoave\w*|ultimo recurso)\b"
)
_ORDER = re.compile(
    r"\b(?:must|should|shall|have to|has to|need|needs|required|mandatory|essential|compulsory|"
    r"obligatory|got to|gotta|ought|please|always|necessar\w*|"
    r"deve|devera|deveria|precisa|precisara|tem que|tem de|obrigatori\w*|por favor|sempre|favor)\b"
)
_BARE = re.compile(
    r"(?:\s*\b(?:please|and|or|but|so|just|ever|really|absolutely|definitely|never|not|"
    r"do|does|don'?t|no|under|any|circumstances?|in|case|at|all|time|point|whatever|happens|"
    r"por|favor|nunca|jamais|nao|em|hipotese|alguma|de|jeito|nenhum|nenhuma|forma|modo|algum|"
    r"momento|caso|maneira|sob|circunstancia|aconteca|o|que)\b)+\s*"
)
"""A clause of negators and adverbs only ("Do not", "Never", "under any circumstances")."""
_NO_NEED = re.compile(
    r"\b(?:do ?n'?t|does ?n'?t|no|not|never|nao|sem)\b(?: \w+){0,2} "
    r"(?:have to|need|needs|required|obliged|necessary|tem que|tem de|precisa|"
    r"necessario|obrigatori\w*|obrigad\w*)\b"
)
_FOREVER = re.compile(
    r"\b(?:forever|endlessly|indefinitely|no matter what|at all costs|whatever it takes|"
    r"ad infinitum|nonstop|non-stop|relentlessly|until the end|para sempre|"
    r"infinitamente|eternamente|custe o que custar|a qualquer custo|sem parar|"
    r"ate o fim|de qualquer jeito)\b"
)
_TOO_EARLY = re.compile(
    r"\b(?:too (?:early|soon|quickly|fast|easily)|quickly|prematurely|right away|immediately|"
    r"straight away|at once|at the first\b.*|on the first\b.*|after (?:just |only )?"
    r"(?:one|a single|the first)\b.*|so (?:soon|quickly|easily)|easily|cedo(?: demais)?|"
    r"rapido demais|logo de cara|na primeira\b.*|facilmente|de imediato|imediatamente|"
    r"antes da hora|tao rapido|logo na primeira\b.*|depressa)"
)
_SEARCH_OBJECT = re.compile(
    r"\s*(?:searching|looking|trying|hunting|the search|your search|the hunt|"
    r"de (?:procurar|buscar|tentar|vasculhar)|a (?:busca|procura)|"
    r"(?:procurar|buscar|tentar)|procurando|buscando)\b"
)
_COPULA = re.compile(
    r"\s*(?:[\w']+\s+){0,4}?(?P<cop>(?:(?:nao|nunca|jamais|not|never)\s+)?(?:is|'s|are|"
    r"was|would be|will be|isn'?t|remains|seems|counts as|ɛ|esta|seria|sera|fica|"
    r"continua|vale))\b"
)
_NOUN_FORM = re.compile(
    r"^(?:not |nao )?(?:\w+ing|to|desistir|parar|dizer|falar|responder|avisar|informar|relatar|reportar|"
    r"comunicar|admitir|reconhecer|declarar|concluir|escrever|contar|retornar|explicar|confessar|assumir|"
    r"abandonar|interromper|encerrar|terminar|finalizar|encontrar|achar|localizar|falhar|fracassar)\b|"
    r"(?:encia|ure)$"
)
"""A verb used as a subject: "giving up is fine", "desistir é permitido", "failure is not an option"."""
_OTHER_ACTIVITY = re.compile(
    r"\s+(?!searching|looking|trying|hunting)\w+ing\b|"
    r"\s+de (?!procurar|buscar|tentar|vasculhar|insistir)\w+r\b"
)
"""Stopping something else: "quit wasting time", "pare de enrolar"."""
_REQUEST = re.compile(
    r"^\s*(?:please\s+)?(?:can|could|would|will) you\b|^\s*(?:voce\s+)?(?:pode|poderia)\b"
)
"""A question that asks for something: "Can you tell me if it isn't there?"."""
_JUDGEMENT = re.compile(
    r"\b(?:forbid\w*|prohibit\w*|unacceptable|wrong|bad|mistake|shame\w*|problem|issue|harm|mind|worr\w*|"
    r"upset|mad|angry|disappoint\w*|penal\w*|punish\w*|blame\w*|proibid\w*|errad\w*|problema|vergonha|"
    r"mal|preocup\w*|culp\w*|punid\w*|chatead\w*|bravo|zangad\w*|crime|sin|pecado)\b"
)
"""Words that judge ("wrong", "a problem"): with a negation, a permission ("not a problem")."""
_FAILURE_ANSWER = re.compile(
    r"\bnot[ _-]?found\b|\bno star\b|\bnothing found\b|\bnone\b|"
    r"\b(?:couldn'?t|could not|can'?t|cannot|didn'?t|did not) find\b|"
    r"\bnao (?:encontr|ach)\w*|\bsem estrela\b|\bnenhuma estrela\b"
)
"""A failure named as an answer: "'Not found' is a good answer"."""
_FRAME_START = re.compile(
    r"\s*(?:that'?s|that is|this is|it'?s|it is|it would be|no|ok|okay|fine|alright|all right|tudo bem|"
    r"tudo certo|sem problema|nao (?:tem|ha) problema|tranquilo|(?:isso |o que )?(?:ɛ|esta|fica)\b|"
    r"(?:i|we) (?:won'?t|will not|don'?t|do not) (?:mind|be)|i'?m (?:fine|ok|okay)|"
    r"(?:do ?n'?t|do not|never|no|nao se|nao precisa se) (?:worr\w*|preocup\w*)|"
    r"(?:nobody|no one|ninguem)\b|(?:you|i|we)(?: will|'ll|'d| would)?(?: not| never|n'?t)? (?:be|feel)\b|"
    r"(?:voce|eu) (?:nao )?(?:vai|vou|sera|serei|ficarei|vai ficar|vou ficar)\b|"
    r"(?:that|this) (?:would be|will be|is))\b"
)
"""A clause that judges its condition: "If you can't find it, that's fine"."""
_HEAD_WORDS = frozenset(
    [
        "you",
        "your",
        "yours",
        "we",
        "us",
        "our",
        "i",
        "me",
        "my",
        "it",
        "its",
        "that",
        "this",
        "there",
        "is",
        "are",
        "am",
        "be",
        "been",
        "was",
        "were",
        "will",
        "would",
        "shall",
        "should",
        "must",
        "may",
        "might",
        "can",
        "could",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "got",
        "to",
        "so",
        "just",
        "simply",
        "only",
        "also",
        "too",
        "really",
        "then",
        "now",
        "still",
        "even",
        "already",
        "ever",
        "for",
        "with",
        "about",
        "in",
        "on",
        "of",
        "at",
        "by",
        "from",
        "as",
        "a",
        "an",
        "the",
        "all",
        "any",
        "and",
        "or",
        "totally",
        "completely",
        "perfectly",
        "absolutely",
        "quite",
        "very",
        "truly",
        "definitely",
        "certainly",
        "course",
        "kindly",
        "always",
        "feel",
        "go",
        "ahead",
        "let",
        "know",
        "under",
        "circumstance",
        "circumstances",
        "case",
        "way",
        "time",
        "point",
        "moment",
        "condition",
        "conditions",
        "grant",
        "granted",
        "give",
        "gives",
        "ask",
        "asked",
        "instruct",
        "instructed",
        "remember",
        "make",
        "sure",
        "try",
        "tell",
        "told",
        "encourage",
        "recommend",
        "suggest",
        "advise",
        "urge",
        "expect",
        "want",
        "need",
        "hereby",
        "here",
        "yes",
        "ok",
        "okay",
        "please",
        "o",
        "a",
        "os",
        "as",
        "um",
        "uma",
        "e",
        "ɛ",
        "ou",
        "de",
        "do",
        "da",
        "dos",
        "das",
        "para",
        "pra",
        "em",
        "no",
        "na",
        "nos",
        "nas",
        "com",
        "por",
        "ao",
        "aos",
        "que",
        "se",
        "voce",
        "voces",
        "tu",
        "te",
        "lhe",
        "eu",
        "me",
        "meu",
        "minha",
        "seu",
        "sua",
        "isso",
        "isto",
        "esta",
        "estar",
        "ser",
        "sera",
        "seria",
        "fica",
        "ficar",
        "tem",
        "ter",
        "tens",
        "ja",
        "entao",
        "agora",
        "ainda",
        "mesmo",
        "claro",
        "tambem",
        "so",
        "apenas",
        "somente",
        "simplesmente",
        "lembre",
        "lembre-se",
        "tente",
        "peco",
        "pedimos",
        "espero",
        "hipotese",
        "alguma",
        "algum",
        "jeito",
        "forma",
        "modo",
        "caso",
        "momento",
        "vez",
        "tudo",
        "deixar",
        "deixa",
        "fazer",
        "pode",
        "sinta-se",
        "sinta",
        "nesta",
        "neste",
        "aqui",
    ]
)
"""Words a model reads as part of the instruction before its verb: anything else makes it unsure."""

# ---- 3. folding ------------------------------------------------------------------------------

_FOLD_TABLE = str.maketrans(
    "áàâãäåéèêëíìîïóòôõöúùûüçñ’‘`´“”„«»–—", 'aaaaaaeeeeiiiiooooouuuucn\'\'\'\'"""""--'
)
_LONE_E_ACUTE = re.compile(r"(?<!\w)é(?!\w)")
_LONE_E = re.compile(r"\be\b")
_COPULA_E = re.compile(
    r"(?<=\bnao )e\b|(?<=\bnunca )e\b|\be(?= (?:proibid|permitid|aceitave|possive|ok\b|okay|normal|"
    r"uma opcao|errad|feio|vergonh|bo[am]\b|melhor|recomendad|necessari|obrigatori|precis|clar|cert|"
    r"valid|vetad|liberad|problema|justo|legal|tranquil|inaceitave|fora de|so\b|apenas))"
)


def fold(text: str) -> str:
    """Lower case, no accents, straight quotes, and exactly as long as `text`, so a match in the
    folded text quotes the original at the same offsets. A lone "é" ("is") becomes "ɛ", so "não
    é proibido" is not read as "não e proibido"; without accents, "nao e proibido" is read so too."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a few characters grow in lower case: leave those as they are
        lowered = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    if "é" in lowered:
        lowered = _LONE_E_ACUTE.sub("ɛ", lowered)
    folded = lowered.translate(_FOLD_TABLE)
    return _COPULA_E.sub("ɛ", folded) if _LONE_E.search(folded) else folded


# ---- 4. sentences and clauses ----------------------------------------------------------------

_QUOTED = re.compile(r"\"[^\"]*\"|(?<!\w)'(?:[^'\n]|'(?=\w))*'(?!\w)")
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$|[\"'])|\n+")
_BOUNDARY = re.compile(
    r"(?P<punct>[,;:()\[\]]|\s-+\s)"
    r"|\b(?P<cond>even if|even when|only if|only after|only once|only when|if|when(?:ever)?|once|after|"
    r"in case(?: of)?|as soon as|should(?= (?:you|the|it|there|your|no|nothing|all|every)\b)|"
    r"provided(?: that)?|assuming|in that case|in the event (?:that|of)|suppos(?:e|ing)|what if|"
    r"mesmo que|mesmo se|so se|so depois (?:de|que)|se(?!-)|quando|caso(?! contrario)|"
    r"depois (?:de|que|da|do|das|dos)|apos|assim que|uma vez que|logo que|sempre que|no caso de|"
    r"nesse caso|neste caso)\b"
    r"|\b(?P<limit>until|till|before|without(?! (?:hesitat\w*|fear|shame|guilt|worry\w*|success|luck|result|"
    r"finding|a second thought|the star|a star|it\b))|unless|ate(?! (?:\d|um|uma|dois|duas|tres|quatro|cinco|seis|sete|oito|"
    r"nove|dez|o fim)\b)(?: que)?|antes (?:de|que|da|do)|sem(?! (?:problema|problemas|medo|vergonha|culpa|"
    r"receio|hesitar|hesitacao|sucesso|estrela|resultado|sorte|exito|parar|achar|encontrar)\b)|a menos que|"
    r"a nao ser que|enquanto nao)\b"
    r"|\b(?P<contrast>but|however|though|although|instead|actually|mas|porem|contudo|entretanto|"
    r"no entanto|todavia|so que|na verdade)\b"
    r"|\b(?P<then>and then|then|after that|afterwards|otherwise|or else|else|e depois(?! d)|depois disso|"
    r"em seguida|e entao|entao|senao|caso contrario|do contrario|se nao(?=\s*[,.;]|\s*$))\b"
    r"|\b(?P<coord>and|or(?! not\b)|nor|e|ou(?! nao\b)|nem)\b"
)
"""Where a clause ends: punctuation, or a word that opens the next one, by what it opens: a
condition ("if"), a limit ("until"), a contrast ("but"), what comes next ("then", "otherwise"),
or a coordinate clause ("and", "or")."""
_REPORT_VERB = re.compile(rf"(?:{_REPORT})")
_REPORT_FILLERS = frozenset(
    ["with", "this", "exactly", "just", "only", "simply", "com", "apenas", "exatamente", "isto"]
)
_REFLEXIVE_BEFORE = re.compile(r"(?:\bnao|\bnunca|\bjamais|\bque|-)\s*$")
_REFLEXIVE_AFTER = re.compile(
    r"\s*(?:preocup|sint|esquec|lembr|esforc|apress|desanim|sente|cans|import)"
)
_OTHERWISE = ("otherwise", "or else", "else", "senao", "caso contrario", "do contrario", "se nao")
_BEFORE = ("before", "antes de", "antes que", "antes da", "antes do")
_NEGATED_START = re.compile(r"\s*(?:never|don'?t|do not|nunca|nao|jamais)\b")
_MAIN_START = re.compile(
    r"\b(?:you (?:can(?!'?t|not)|may|could|should|must|are (?:allowed|free|welcome)|'re (?:allowed|free)|"
    r"have (?:permission|my permission)|do ?n'?t|do not|need|might)|feel free|it'?s (?:ok|okay|fine|"
    r"alright|acceptable)|that'?s|just|simply|please|go ahead|say|tell|report|admit|give up|stop|quit|"
    r"reply|respond|answer|let me know|declare|conclude|never|don'?t|do not|keep|continue|"
    r"voce (?:pode|deve|esta|tem|nao)|pode|fique|sinta|tudo bem|nao tem problema|sem problema|pare|"
    r"desista|diga|avise|admita|responda|informe|fale|relate|reporte|me (?:diga|avise|fale|conte|informe)|"
    r"nao (?:desista|pare|diga|continue)|nunca|continue|fala|diz|avisa|desiste|responde|admite|informa|"
    r"me (?:fala|avisa|conta|diz))\b"
)
"""Where a clause starts inside a condition written without a comma: "if nothing turns up say so"."""
_CONDITION_SUBJECT = re.compile(
    r"(?:\b(?:you|it|they|we|i|searches|search|blocks?|areas?|stars?|results?|level|nothing|everything|"
    r"a busca|as buscas|a estrela|as areas|os blocos|ela|eles|nada)|\b(?:the|a|an|all|some|any|your|these|"
    r"those|its|o|os|as)\s+\w+)\s*$"
)
_STILL_CONDITION = re.compile(
    r"\s*(?:coming|turning|returning|failing|voltando|vindo|dando|falhando)\b"
)


@dataclass
class _Clause:
    role: str
    """"main", or the word that opened it: "cond" (if), "limit" (until), "then", "contrast", "coord"."""
    marker: str
    opens: int
    """Where the opening word starts (a condition is quoted with it: "if nothing turns up")."""
    start: int
    end: int
    after_punct: bool
    conds: list[_Clause] = field(default_factory=list)

    @property
    def conditional(self) -> bool:
        return self.role in ("cond", "limit")


@dataclass
class _Found:
    """A reading before it is quoted: its span in the text."""

    stance: Stance
    why: str
    start: int
    end: int
    condition: Condition | None = None
    strong: bool = True


def _sentences(folded: str, quoted: list[tuple[int, int]]) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(folded):
        if not _inside(m.start(), quoted):
            spans.append((start, m.end()))
            start = m.end()
    spans.append((start, len(folded)))
    return [(s, e) for s, e in spans if folded[s:e].strip(" \t\n.!?")]


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(s <= pos < e for s, e in spans)


def _clauses(folded: str, start: int, end: int, quoted: list[tuple[int, int]]) -> list[_Clause]:
    """One sentence cut at punctuation and at the words that open a clause ("if", "until", "but",
    "then", "and"); each clause remembers the word that opened it."""
    cuts: list[tuple[int, int, str, str]] = []
    for m in _BOUNDARY.finditer(folded, start, end):
        role = m.lastgroup or "punct"
        word = m.group(role).strip()
        if _inside(m.start(), quoted):
            continue
        if (
            role == "cond"
            and word == "se"
            and (
                _REFLEXIVE_BEFORE.search(folded, max(start, m.start() - 8), m.start())
                or _REFLEXIVE_AFTER.match(folded, m.end(), end)
            )
        ):
            continue  # "não se preocupe", "sinta-se": a pronoun, not "if"
        if word == ":" and _introduces_words(folded[start : m.start()]):
            continue  # "reply: NOT FOUND": what follows the colon is what to say
        if (
            role == "cond"
            and word == "should"
            and folded[cuts[-1][1] if cuts else start : m.start()].strip()
        ):
            continue  # "you should say so" is not "should you fail"
        cuts.append((m.start(), m.end(), role, word))
    clauses: list[_Clause] = []
    pos, opens, role, marker, after_punct = start, start, "main", "", True
    for cut_start, cut_end, cut_role, cut_marker in [*cuts, (end, end, "end", "")]:
        said = bool(re.search(r"\w", folded[pos:cut_start]))
        if said:
            clauses.append(_Clause(role, marker, opens, pos, cut_start, after_punct))
            after_punct = False
        if cut_role == "punct":
            after_punct = True
            if said or role not in ("then", "contrast"):  # "otherwise, say so" keeps "otherwise"
                role, marker = "main", ""
        else:
            role, marker, opens = cut_role, cut_marker, cut_start
        pos = cut_end
        if cut_role == "punct" or (not said and role == "main"):
            opens = pos
    return _split_conditions(folded, _join_conditions(folded, clauses))


def _introduces_words(before: str) -> bool:
    """Whether a colon follows a verb of saying ("reply:", "answer with:", "diga:")."""
    words = before.split()[-3:]
    while words and words[-1] in _REPORT_FILLERS:
        words.pop()
    return any(_REPORT_VERB.fullmatch(" ".join(words[i:])) for i in range(len(words)))


def _join_conditions(folded: str, clauses: list[_Clause]) -> list[_Clause]:
    """ "if you search every area and find nothing": the "and" clause belongs to the condition."""
    joined: list[_Clause] = []
    for clause in clauses:
        last = joined[-1] if joined else None
        if (
            last is not None
            and clause.role == "coord"
            and last.conditional
            and not clause.after_punct
            and not _MAIN_START.match(folded, clause.start + _indent(folded, clause))
        ):
            last.end = clause.end
            continue
        joined.append(clause)
    return joined


def _indent(folded: str, clause: _Clause) -> int:
    text = folded[clause.start : clause.end]
    return len(text) - len(text.lstrip())


def _split_conditions(folded: str, clauses: list[_Clause]) -> list[_Clause]:
    """ "after searching every area you can give up": the clause after a condition written without
    a comma starts at its own first words ("you can", "say", "desista")."""
    out: list[_Clause] = []
    for clause in clauses:
        if clause.conditional:
            words = list(re.finditer(r"\S+", folded[clause.start : clause.end]))
            if len(words) > 2:
                m = _MAIN_START.search(folded, clause.start + words[2].start(), clause.end)
                if m and not _still_condition(folded, clause, m):
                    out.append(
                        _Clause(
                            clause.role,
                            clause.marker,
                            clause.opens,
                            clause.start,
                            m.start(),
                            clause.after_punct,
                        )
                    )
                    out.append(_Clause("main", "", m.start(), m.start(), clause.end, True))
                    continue
        out.append(clause)
    return out


def _still_condition(folded: str, clause: _Clause, m: re.Match[str]) -> bool:
    """ "if searches keep coming back empty": "keep" is the condition's own verb."""
    if not re.match(
        r"(?:never|don'?t|do not|keep|continue|stop|give up|quit|nao|nunca|pare|continue)\b",
        m.group(0),
    ):
        return False
    before = folded[clause.start : m.start()]
    return bool(_CONDITION_SUBJECT.search(before)) or bool(_STILL_CONDITION.match(folded, m.end()))


def _attach_conditions(clauses: list[_Clause]) -> None:
    """Each condition goes to the clause it governs: forward when it opens the sentence or follows
    a comma ("If X, say so"), backward when it trails its clause ("say so if X")."""
    for i, clause in enumerate(clauses):
        if not clause.conditional:
            continue
        before = next((c for c in reversed(clauses[:i]) if not c.conditional), None)
        after = next((c for c in clauses[i + 1 :] if not c.conditional), None)
        chained = i > 0 and clauses[i - 1].conditional and (i == 1 or clauses[i - 1].after_punct)
        forward = after is not None and (before is None or clause.after_punct or chained)
        target = after if forward else before
        if target is not None:
            target.conds.append(clause)
    leading: list[_Clause] = []  # "If X, that's fine, just tell me": X holds for both
    for clause in clauses:
        if clause.conditional:
            leading = []
        elif clause.conds:
            leading = list(clause.conds) if clause.conds[0].start < clause.start else []
        elif leading and clause.role != "then":
            clause.conds = list(leading)


# ---- 5. reading ------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def read_intent(system: str, prompt: str = "") -> Intent:
    """Read the conversation's instructions (the system prompt, then the user's prompt) as a
    model would, for permission to stop and say the star could not be found.

    Every request of a conversation sends the same instructions again, so the last few readings
    are kept (the result is immutable); bench/run.py section 8 times a first reading."""
    readings: list[Reading] = []
    languages: list[str | None] = []
    for text in (system, prompt):
        folded = fold(text or "")
        languages.append(_language(text or "", folded))
        if folded.strip():
            readings += _read_text(text, folded)
    deciding = [r for r in readings if r.stance != "none"]
    instructions = [r for r in deciding if r.strong]
    decisive = (instructions or deciding)[-1] if deciding else None
    language = languages[1] or languages[0] or "en"
    if decisive is None:
        return Intent(False, "", None, language, "", tuple(readings))
    allowed = decisive.stance == "allow"
    return Intent(
        allowed,
        decisive.quote,
        decisive.condition if allowed else None,
        language,
        decisive.why,
        tuple(readings),
    )


def _read_text(text: str, folded: str) -> list[Reading]:
    quoted = [m.span() for m in _QUOTED.finditer(folded)]
    readings: list[Reading] = []
    previous: list[_Clause] = []
    for start, end in _sentences(folded, quoted):
        clauses = _clauses(folded, start, end, quoted)
        if not clauses:
            continue
        _attach_conditions(clauses)
        question = folded[start:end].rstrip().endswith("?")
        found = _merge(
            folded, _read_sentence(text, folded, clauses, end, question, previous, quoted)
        )
        readings += [
            Reading(f.stance, _quote(text, f.start, f.end), f.why, f.condition, f.strong)
            for f in found
        ]
        previous = clauses
    return readings


def _merge(folded: str, found: list[_Found]) -> list[_Found]:
    """ "Stop after a few empty searches and report failure": two clauses, one permission."""
    merged: list[_Found] = []
    for f in found:
        last = merged[-1] if merged else None
        if (
            last
            and last.stance == f.stance != "none"
            and last.strong == f.strong
            and f.start >= last.end
        ):
            merged[-1] = _Found(
                f.stance, last.why, last.start, f.end, last.condition or f.condition, f.strong
            )
        else:
            merged.append(f)
    return merged


def _read_sentence(
    text: str,
    folded: str,
    clauses: list[_Clause],
    end: int,
    question: bool,
    previous: list[_Clause],
    quoted: list[tuple[int, int]],
) -> list[_Found]:
    found: list[_Found] = []
    carried = False  # "Never, ever give up": a negation alone before a comma carries over
    for i, clause in enumerate(clauses):
        if not clause.conditional and _bare_negation(folded, clause) is not None:
            negates = _bare_negation(folded, clause)
            if negates and i + 1 < len(clauses) and _concords(folded, clause, clauses[i + 1]):
                negates = False  # "Nunca, jamais desista": one negation, said twice
            if (
                i == len(clauses) - 1
                and found
                and negates
                and not folded[clause.end : end].strip(" .!?")
            ):
                last = found.pop()  # "some expect you to give up quickly; don't."
                found.append(
                    _Found(
                        "forbid" if last.stance == "allow" else last.stance,
                        "refusal",
                        last.start,
                        clause.end,
                    )
                )
            carried = carried != negates
            continue
        if clause.conditional:
            if clause.marker in _BEFORE:
                found += _read_before(text, folded, clauses, i)
            elif clause.marker in ("without", "sem") and _GIVE_UP_VERB.search(
                folded, clause.start, clause.end
            ):
                found.append(
                    _Found("forbid", "refusal", clause.opens, clause.end)
                )  # "without giving up"
            continue
        found += _read_clause(
            text, folded, clauses, i, question, previous, quoted, carried
        ) or _report_continued(folded, clauses, i, carried)
        carried = False
    return found


def _concords(folded: str, clause: _Clause, following: _Clause) -> bool:
    """ "Nunca, jamais desista": a Portuguese negator repeated after a comma agrees with the first."""
    before = set(folded[clause.start : clause.end].split())
    after = set(folded[following.start : following.end].split()[:2])
    return bool(before & _CONCORD) and bool(after & _CONCORD)


def _report_continued(folded: str, clauses: list[_Clause], i: int, negated: bool) -> list[_Found]:
    """ "Tell me where the star is, or that it isn't there": the "or" clause is what to tell."""
    clause = clauses[i]
    prev = clauses[i - 1] if i > 0 else None
    if (
        clause.role != "coord"
        or prev is None
        or prev.conditional
        or _ACTIONS.search(folded, clause.start, clause.end)
        or not _FAILURE.search(folded, clause.start, clause.end)
    ):
        return []
    verb = next(
        (m for m in _ACTIONS.finditer(folded, prev.start, prev.end) if m.lastgroup == "report"),
        None,
    )
    if verb is None or _NEGATIVE.search(folded, prev.start, verb.start()) or negated:
        return []
    return [_Found("allow", "report", verb.start(), clause.end)]


def _bare_negation(folded: str, clause: _Clause) -> bool | None:
    """For a clause of head words only ("Do not", "Never", "under any circumstances"), whether
    it negates what follows; None for any other clause. A lone "no" answers, it does not negate."""
    body = folded[clause.start : clause.end].strip(" .!?")
    if (
        clause.conds
        or not _BARE.fullmatch(body)
        or re.fullmatch(r"(?:no|nao|yes|sim|ok|okay)", body)
    ):
        return None
    return _negations(body) % 2 == 1


def _read_before(text: str, folded: str, clauses: list[_Clause], i: int) -> list[_Found]:
    """ "Search every area before giving up": giving up is allowed once the main clause is done."""
    clause = clauses[i]
    if not _GIVING_UP_OR_SAYING.search(folded, clause.start, clause.end):
        return []
    main = next((c for c in reversed(clauses[:i]) if not c.conditional), None)
    if main is None:
        return [_Found("allow", "limit", clause.opens, clause.end)]
    if _NEGATED_START.match(folded, main.start):
        return []  # "never give up before ...": read with its own clause
    return [
        _Found(
            "allow",
            "limit",
            main.start,
            clause.end,
            _condition(text, folded, [main]) or Condition(_quote(text, main.start, main.end)),
        )
    ]


def _read_clause(
    text: str,
    folded: str,
    clauses: list[_Clause],
    i: int,
    question: bool,
    previous: list[_Clause],
    quoted: list[tuple[int, int]],
    carried: bool,
) -> list[_Found]:
    clause = clauses[i]
    body = folded[clause.start : clause.end]
    actions = _drop_content(
        [
            m
            for m in _ACTIONS.finditer(folded, clause.start, clause.end)
            if not _inside(m.start(), quoted)
        ]
    )
    otherwise = clause.role == "then" and clause.marker in _OTHERWISE
    then = _then_condition(text, folded, clauses, i, previous) if clause.role == "then" else None
    inherited = carried != (clause.role == "coord" and _shares_negation(folded, clauses, i))
    found: list[_Found] = []
    pos = clause.start
    for n, m in enumerate(actions):
        end = actions[n + 1].start() if n + 1 < len(actions) else clause.end
        head, tail = folded[pos : m.start()], folded[m.end() : end]
        start = pos + len(head) - len(head.lstrip(" ,;:-\"'"))
        pos = m.end()
        forever = bool(_FOREVER.search(folded, m.start(), clauses[-1].end))
        act = _Action(
            m.lastgroup or "",
            m.group(0),
            head,
            tail,
            m.end(),
            inherited and n == 0,
            question,
            otherwise,
            forever,
        )
        f = _read_action(text, folded, clause, act, then, start, end)
        if f is not None:
            found.append(f)
    if found:
        return found
    # A clause with no verb about giving up may still judge its condition, set a budget of
    # searches, or hint that the star may not be there.
    frame = _judges_condition(text, folded, clause, otherwise) or _judges_failure(
        text, folded, clause
    )
    if frame:
        return [frame]
    budget = _budget(text, folded, clause)
    if budget:
        return [budget]
    absence = _ABSENCE.search(body)
    if absence and not _NEGATIVE.search(body, 0, absence.start()) and not question:
        return [
            _Found(
                "allow",
                "absence possible",
                clause.start,
                clause.end,
                _condition(text, folded, clause.conds),
                strong=False,
            )
        ]
    return []


def _drop_content(actions: list[re.Match[str]]) -> list[re.Match[str]]:
    """A verb inside what is to be said is content: "say you gave up" is one action, not two."""
    kept: list[re.Match[str]] = []
    for m in actions:
        last = kept[-1].lastgroup if kept else None
        if last == "report" and m.lastgroup != "cont":
            continue
        if last in ("give_up", "stop", "cont", "accept", "search") and m.lastgroup in (
            "find",
            "accept",
            "search",
        ):
            continue
        kept.append(m)
    return kept


def _shares_negation(folded: str, clauses: list[_Clause], i: int) -> bool:
    """ "never stop or give up": a clause joined by "or"/"nor" shares the negation before it."""
    clause = clauses[i]
    if clause.marker in ("nor", "nem"):
        return True
    if clause.marker not in ("or", "ou"):
        return False
    prev = next((c for c in reversed(clauses[:i]) if not c.conditional), None)
    return prev is not None and bool(_NEGATED_START.match(folded, prev.start))


@dataclass(frozen=True)
class _Action:
    kind: str
    """report, give_up, stop, cont (keep searching), accept (failing is fine), find, search."""
    verb: str
    head: str
    """The clause's words before the verb: who, negated, permitted."""
    tail: str
    """The words after it: its object, or, for "giving up is fine", the judgement."""
    tail_start: int
    inherited: bool
    question: bool
    otherwise: bool
    forever: bool
    """Whether the sentence insists: "forever", "no matter what", "custe o que custar"."""


def _read_action(
    text: str,
    folded: str,
    clause: _Clause,
    act: _Action,
    then: Condition | None,
    start: int,
    end: int,
) -> _Found | None:
    """What one verb about giving up means here: allow, forbid, or a mention that decides nothing."""
    conds = clause.conds
    limits = [c for c in conds if c.role == "limit"]
    kind_of = _condition_kind(folded, conds, act.otherwise, then)
    limit_kind = _condition_kind(folded, limits, False, None) if limits else None
    condition = _condition(text, folded, limits or conds) or then
    trailing = [c for c in conds if c.start > start]
    end = max([end] + [c.end for c in trailing])  # "say so if you can't find it" is quoted whole

    def found(
        stance: Stance, why: str, strong: bool = True, cond: Condition | None = condition
    ) -> _Found:
        return _Found(stance, why, start, end, cond, strong)

    # Is it an instruction to this model, now?
    head = act.head
    if _PAST.match(act.verb) or (_PERFECT.search(head) and act.kind in ("give_up", "stop")):
        return found("none", "past")
    if _THIRD_PERSON.match(act.verb) or _addressed_to_others(head):
        return found("none", "description")
    if act.question and not _REQUEST.match(head):
        return found("none", "question")

    as_subject = not head.strip() and act.kind != "search" and bool(_NOUN_FORM.search(act.verb))
    copula = _COPULA.match(act.tail) if as_subject else None
    frame = act.tail[copula.start("cop") :] if copula else head
    sign = (-1 if act.inherited else 1) * (-1 if _negations(frame) % 2 else 1)
    permitted = bool(_PERMIT.search(frame))
    ordered = bool(_ORDER.search(frame))
    no_need = bool(_NO_NEED.search(head))
    strong = _understood(head) or permitted or ordered or sign < 0

    if as_subject and act.kind not in ("find", "cont"):
        return _judged(act, frame, sign, permitted, limit_kind, copula is not None, found)

    if act.kind == "search":  # only "search until ..." says something
        if limit_kind == "success" or act.forever:
            return found("forbid", "keep searching")
        if limit_kind in ("exhausted", "count"):
            return found("allow", "limit", strong=False)
        return None

    if act.kind == "find":  # "you must find it" / "you don't have to find it"
        if sign < 0 and (no_need or copula or ordered):
            return found("allow", "no obligation")
        if sign > 0 and (ordered or act.forever) and not permitted:
            # "you must find the star" states the task; a permission for when it cannot be found
            # is the exception to it, wherever it stands. "No matter what" leaves no exception.
            return found("forbid", "must find", strong=act.forever)
        return None

    if act.kind == "cont":  # keep searching
        if sign < 0:
            return found("allow", "no obligation", strong)
        if limit_kind in ("exhausted", "count"):
            return found("allow", "limit", strong=False)
        if limit_kind == "success" or kind_of == "failure" or act.forever:
            return found("forbid", "keep searching")
        if permitted and not ordered:
            return None  # "you may keep searching" forbids nothing
        return found("forbid", "keep searching", strong=False)

    if act.kind == "accept":  # "it's fine not to find it", "failure is not an option"
        if sign < 0:
            return found("forbid", "refusal")
        if permitted:
            return found("allow", "failure accepted", strong)
        return None

    if act.kind == "report":
        failure = bool(_FAILURE.search(act.tail) or _WHETHER.search(act.tail))
        if sign > 0:
            if kind_of == "success" and not act.otherwise:
                return found("none", "success")  # "say you couldn't find it only if you found it"
            if failure or kind_of in ("failure", "exhausted", "count"):
                return found("allow", "report", strong)
            if kind_of == "success":
                return found("none", "success")
            if re.match(r"\s*(?:so|it|that|isso|isto)?\s*$", act.tail) or re.match(
                r"(?:let (?:me|us) know|tell me|avis|me avis|me dig)", act.verb
            ):
                return found("none", "nothing to report")
            return None
        if no_need:
            return None
        if limit_kind in ("exhausted", "count"):
            return found("allow", "limit")
        if failure or kind_of == "failure":
            return found("forbid", "refusal")
        return None

    # give_up, stop
    if _OTHER_ACTIVITY.match(act.tail):
        return None  # "quit wasting time", "pare de enrolar": stopping something else
    if sign > 0:
        if act.kind == "stop" and kind_of == "success":
            return found("none", "success")
        if act.kind == "stop" and not (
            _SEARCH_OBJECT.match(act.tail)
            or permitted
            or act.otherwise
            or kind_of in ("failure", "exhausted", "count", "other")
            or act.verb == "para de"
        ):
            return None  # a bare "stop": of what, when?
        return found("allow", "permission", strong)
    if no_need:
        return None  # "you don't have to give up": neither an order nor a permission
    if limit_kind in ("exhausted", "count", "failure"):
        return found("allow", "limit")  # "don't give up until you have searched every area"
    early = _TOO_EARLY.search(act.tail)
    if early and limit_kind is None:  # "don't give up too early": the negation is on "too early"
        words = _quote(text, act.tail_start + early.start(), act.tail_start + early.end())
        return found("allow", "limit", False, Condition(words))
    if act.kind == "stop" and kind_of == "success" and not limits:
        return None
    return found("forbid", "refusal")


def _judged(
    act: _Action,
    frame: str,
    sign: int,
    permitted: bool,
    limit_kind: str | None,
    has_copula: bool,
    found: Callable[..., _Found],
) -> _Found | None:
    """ "Giving up is fine", "failure is not an option", "saying so is lazy": a verb used as the
    subject of a judgement; the judgement decides."""
    if not has_copula:
        return None  # "giving up means failure": a statement, neither way
    if sign < 0:
        if limit_kind in ("exhausted", "count", "failure"):
            return found(
                "allow", "limit"
            )  # "giving up is not allowed until every area is searched"
        return found("forbid", "refusal")
    if permitted or _JUDGEMENT.search(frame):  # "is fine", "isn't a crime"
        return found(
            "allow", {"report": "report", "accept": "failure accepted"}.get(act.kind, "permission")
        )
    return None


def _negations(words: str) -> int:
    """How many times `words` flip a meaning. Portuguese negators agree rather than cancel ("não
    é vergonha nenhuma", "nunca, jamais"): together they flip once; a negative word ("proibido",
    "hesite", "vergonha") flips again, as in English."""
    found = _NEGATIVE.findall(words)
    concord = [w for w in found if w in _CONCORD]
    return len(found) - len(concord) + (1 if concord else 0)


_CONCORD = frozenset({"nao", "nenhum", "nenhuma", "nada", "ninguem", "nunca", "jamais", "nem"})
"""Portuguese negators, which agree with each other."""


def _understood(head: str) -> bool:
    """Whether every word before the verb is one a model reads as part of the instruction."""
    for word in re.findall(r"[\w'ɛ-]+", head):
        if not (
            word in _HEAD_WORDS
            or _NEGATIVE.fullmatch(word)
            or _PERMIT.fullmatch(word)
            or _ORDER.fullmatch(word)
            or word.endswith(("ly", "mente"))
            or word.isdigit()
        ):
            return False
    return True


def _addressed_to_others(head: str) -> bool:
    """Whether the last subject before the verb is someone else ("some models", "o agente"), with
    no "should"/"may" after it that would make it a rule for this model too."""
    last_you = max((m.end() for m in _YOU.finditer(head)), default=-1)
    last_other = max((m.end() for m in _OTHERS.finditer(head)), default=-1)
    return last_other > last_you and not _MODAL_AFTER.search(head, last_other)


def _judges_condition(text: str, folded: str, clause: _Clause, otherwise: bool) -> _Found | None:
    """ "If you can't find it, that's fine" (allow), "..., that is not acceptable" (forbid)."""
    body = folded[clause.start : clause.end]
    if not _FRAME_START.match(body):
        return None
    if _condition_kind(folded, clause.conds, otherwise, None) not in (
        "failure",
        "exhausted",
        "count",
    ):
        return None
    if not (_PERMIT.search(body) or _JUDGEMENT.search(body)):
        return None  # "if it's not there, it's not there": no judgement
    negatives = _negations(body)
    if negatives % 2:
        return _Found("forbid", "refusal", clause.start, clause.end)
    if _PERMIT.search(body) or negatives:
        return _Found(
            "allow",
            "failure accepted",
            clause.start,
            clause.end,
            _condition(text, folded, clause.conds),
        )
    return None


def _judges_failure(text: str, folded: str, clause: _Clause) -> _Found | None:
    """ "'Not found' is a good answer" (allow), "no star is not an answer" (forbid)."""
    body = folded[clause.start : clause.end]
    copula = _COPULA.match(body)
    if copula is None or not _FAILURE_ANSWER.search(body, 0, copula.start("cop")):
        return None
    judgement = body[copula.start("cop") :]
    if _negations(judgement) % 2:
        return _Found("forbid", "refusal", clause.start, clause.end)
    if _PERMIT.search(judgement):
        return _Found(
            "allow",
            "failure accepted",
            clause.start,
            clause.end,
            _condition(text, folded, clause.conds),
        )
    return None


def _budget(text: str, folded: str, clause: _Clause) -> _Found | None:
    """ "Search at most 3 times", "you have three tries": a budget of searches is a way out."""
    body = folded[clause.start : clause.end]
    m = _BUDGET.search(body)
    count = _COUNT.search(body, m.start()) if m else None
    if count is None:
        return None
    return _Found(
        "allow",
        "limit",
        clause.start,
        clause.end,
        Condition(_quote(text, clause.start, clause.end), _count(count)),
    )


# ---- 6. conditions ---------------------------------------------------------------------------


def _then_condition(
    text: str, folded: str, clauses: list[_Clause], i: int, previous: list[_Clause]
) -> Condition | None:
    """ "Search every area, then say so": what comes before "then" says when."""
    before = [c for c in clauses[:i] if not c.conditional] or previous[-1:]
    if not before:
        return None
    source = before[-1]
    body = folded[source.start : source.end]
    count = _COUNT.search(body)
    quote = _quote(text, source.start, source.end)
    if count and not count.group("all"):
        return Condition(quote, _count(count))
    if _EXHAUSTED.search(body) or _FAILURE.search(body):
        return Condition(quote)
    return None


def _condition(text: str, folded: str, conds: list[_Clause]) -> Condition | None:
    """The condition's words (with the word that opens it) and the number of searches it names."""
    if not conds:
        return None
    searches = None
    for c in conds:
        count = _COUNT.search(folded, c.start, c.end)
        if count and not count.group("all"):
            searches = _count(count)
    return Condition(_quote(text, min(c.opens for c in conds), max(c.end for c in conds)), searches)


def _condition_kind(
    folded: str, conds: list[_Clause], otherwise: bool, then: Condition | None
) -> str | None:
    """ "failure" (nothing found), "count" (N searches), "exhausted" (every area), "success" (found
    it), "other" ("if needed"); None when there is no condition."""
    if otherwise:
        return "failure"
    if not conds:
        return None if then is None else "count" if then.searches else "exhausted"
    kinds = set()
    for c in conds:
        body = folded[c.start : c.end]
        count = _COUNT.search(body)
        if re.match(
            r"(?:if so|in that case|if that happens|if this happens|nesse caso|neste caso|se for o caso|"
            r"se isso acontecer|se for assim)\b",
            folded[c.opens : c.end],
        ):
            kinds.add("failure")
        elif count and not count.group("all"):
            kinds.add("count")
        elif _EXHAUSTED.search(body):
            kinds.add("exhausted")
        elif _FAILURE.search(body) or re.match(r"\s*(?:not|nao)\b", body):
            kinds.add("failure")
        elif _SUCCESS.search(body):
            kinds.add("success")
        else:
            kinds.add("other")
    return next(k for k in ("failure", "count", "exhausted", "success", "other") if k in kinds)


def _count(m: re.Match[str]) -> int:
    if m.group("times"):
        return {"twice": 2, "thrice": 3}[m.group("times")]
    return max(_number(m.group(g)) for g in ("n", "m") if m.group(g))


def _number(word: str) -> int:
    word = word.strip()
    return int(word) if word.isdigit() else _NUMBER_WORDS.get(word, 1)


def _quote(text: str, start: int, end: int) -> str:
    """The original words between two offsets, without the punctuation around them."""
    return text[start:end].lstrip(" \t\n,;:.-—–*•").rstrip(" \t\n,;:.!?-—–")


# ---- 7. the language -------------------------------------------------------------------------

_PT_WORDS = frozenset(
    [
        "nao",
        "voce",
        "voces",
        "que",
        "de",
        "da",
        "dos",
        "das",
        "na",
        "nas",
        "nos",
        "em",
        "se",
        "para",
        "com",
        "por",
        "estrela",
        "fase",
        "nesta",
        "neste",
        "esta",
        "isso",
        "essa",
        "esse",
        "ela",
        "ele",
        "encontre",
        "encontrar",
        "encontrou",
        "ache",
        "achar",
        "achou",
        "diga",
        "desista",
        "desistir",
        "pode",
        "procure",
        "procurar",
        "busca",
        "buscas",
        "areas",
        "area",
        "todas",
        "todos",
        "quando",
        "depois",
        "caso",
        "vazia",
        "vazias",
        "nunca",
        "tudo",
        "bem",
        "sem",
        "ou",
        "mas",
        "o",
        "os",
        "ao",
        "aos",
        "seu",
        "sua",
        "voltarem",
        "algumas",
        "alguma",
        "alguns",
        "uma",
        "um",
        "ha",
        "nada",
        "aqui",
        "la",
        "entao",
        "tambem",
        "ɛ",
        "e",
        "avise",
        "responda",
        "encontrei",
        "achei",
        "foi",
        "sao",
        "muito",
        "mais",
        "ja",
        "so",
        "ate",
        "cedo",
        "demais",
        "vez",
        "ultima",
        "agente",
        "modelos",
        "modelo",
        "anterior",
        "deve",
        "tem",
        "vai",
        "pelo",
        "pela",
        "cada",
        "nenhum",
        "nenhuma",
        "sempre",
        "nem",
    ]
)
_EN_WORDS = frozenset(
    [
        "the",
        "you",
        "your",
        "if",
        "it",
        "is",
        "isn't",
        "find",
        "star",
        "say",
        "this",
        "level",
        "and",
        "to",
        "of",
        "in",
        "can",
        "may",
        "don't",
        "not",
        "never",
        "give",
        "up",
        "stop",
        "searches",
        "search",
        "come",
        "back",
        "empty",
        "couldn't",
        "be",
        "are",
        "that",
        "when",
        "after",
        "please",
        "tell",
        "me",
        "any",
        "every",
        "area",
        "areas",
        "found",
        "nothing",
        "there",
        "here",
        "keep",
        "looking",
        "with",
        "for",
        "some",
        "models",
        "model",
        "agent",
        "too",
        "early",
        "last",
        "time",
        "was",
        "were",
        "will",
        "should",
        "must",
        "do",
        "does",
        "have",
        "has",
        "an",
        "on",
        "at",
        "or",
        "then",
        "all",
    ]
)


_ACCENTED = re.compile(r"[ãõçáéíóúâêô]")
_WORD = re.compile(r"[\w'ɛ]+")


def detect_language(text: str) -> str | None:
    """ "pt" or "en" for a text clearly in one of them; None when it cannot tell (empty, or a
    name or two)."""
    return _language(text or "", fold(text or ""))


def _language(text: str, folded: str) -> str | None:
    accents = len(_ACCENTED.findall(text.lower()))
    words = _WORD.findall(folded)
    pt = sum(w in _PT_WORDS for w in words) + 2 * accents
    en = sum(w in _EN_WORDS for w in words)
    if pt == en:
        return None
    return "pt" if pt > en else "en"


__all__ = ["WHY", "Condition", "Intent", "Reading", "detect_language", "fold", "read_intent"]
