"""The mock reads a learner's own words (issue 10): a small reader of intent, and the personas
that act on it, in English and Brazilian Portuguese.

The corpus below was written for these tests: permission in many wordings, refusals and
negations, double negatives, conditions, prompts that only mention giving up, and mixed prompts
where a later sentence overrides an earlier one. Each phrasing is the system prompt of one run
of the searcher on level 1-1, which hides no star, and the test asserts the exit it takes: the
flag (it gave up) or the clock (it kept searching). The reader has never seen the phrasings an
independent set will try: these are examples of a class, not a list it matches.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from whentostop import Stop, connect, load_level, run_agent
from whentostop.i18n import using
from whentostop.lesson import give_up, prompt
from whentostop.mock.intent import detect_language, fold, read_intent

GIVES_UP_EN = [
    "If a few searches come back empty, say you couldn't find it.",
    "If you cannot locate it, say so.",
    "Stop after a few empty searches and report failure.",
    "Reply 'not found' when the searches keep coming back empty.",
    "You may give up.",
    "You can give up if the star isn't there.",
    "You are allowed to stop searching once every area is empty.",
    "It's fine to say you couldn't find the star.",
    "It's OK to give up after searching every area.",
    "Feel free to stop if nothing turns up.",
    "You don't have to keep searching forever.",
    "If the star isn't there, then say so.",
    "Tell me if it isn't there.",
    'Reply "not found" if you cannot find it.',
    "Report failure if every area comes back empty.",
    "If you can't find it, admit it.",
    "Don't hesitate to say you couldn't find it.",
    "It's not forbidden to give up.",
    "Giving up is fine.",
    "Giving up is allowed once you have searched every area.",
    "Never give up. Actually, if all areas are empty, you may say so.",
    "Give up after 2 empty searches.",
    "After searching every area, you can give up.",
    "After searching every area you can give up.",
    "Don't stop until you have searched every area.",
    "Don't give up before searching all the areas.",
    "Search every area before you give up.",
    "Try three times, then give up.",
    "Let me know if you come up empty.",
    "If nothing turns up, that's fine, just tell me.",
    "If you can't find it, that's OK.",
    "Should you not find the star, say so.",
    "Find the star or tell me it isn't there.",
    "Find the star; otherwise, say you couldn't.",
    "There's no shame in saying you couldn't find it.",
    "Nobody will blame you for giving up.",
    "No need to keep looking once you've searched everywhere.",
    "You don't need to find it.",
    "The star might not be in this level.",
    "Search at most 3 times, then report that you found nothing.",
    "Tell me whether or not you found it.",
    "If you come up empty, say so and stop.",
    "When every area has been searched without success, give up and say so.",
    "It is perfectly acceptable to report that the star is not in this level.",
    "Admitting you couldn't find it is better than guessing.",
    "If the star is missing, let me know.",
    "Say 'I could not find it' if nothing turns up.",
    "Answer NOT_FOUND if the star is not there.",
    "You can tell me the star doesn't exist.",
    "If searches keep failing, stop and tell me.",
    "Don't search forever.",
    "Don't give up too early.",
    "I'm fine with you giving up.",
    "I won't be upset if you can't find it.",
    "It's okay not to find the star.",
    "Failing to find the star is acceptable.",
    "If you don't find it, give up.",
    "Give up gracefully if needed.",
    "Only give up if the star is truly not there.",
    "If it's not there, just stop.",
    "Say so if you can't find it.",
    "Stop searching if nothing turns up after a couple of tries.",
    "Please report back if the star can't be found.",
    "You have my permission to give up.",
    "Be honest: if you can't find the star, say so.",
    "If you've searched everywhere, call it off.",
    "Once you've checked every area, feel free to stop.",
    "You're free to quit once all areas are searched.",
    "If the star is not in any area, tell me so.",
    "When you have looked everywhere and found nothing, it's okay to stop.",
    "You're welcome to give up if the level seems empty.",
    "Please just say you couldn't find it if the searches are empty.",
    "It's alright to give up when there's nowhere left to search.",
    "If you come back empty-handed, that's acceptable.",
    "Report 'no star found' if you can't locate it.",
    "If there is no star, say so.",
    "Respond with 'not found' after checking all areas.",
    "Tell me honestly if you cannot find the star.",
    "You are permitted to stop after searching each area once.",
    "Giving up is an option if every area turns up nothing.",
    "Feel free to admit defeat.",
    "It is acceptable to conclude that the star is not in this level.",
    "If after three searches you still have nothing, give up.",
    "Stop looking after 4 failed searches.",
    "After two empty searches, stop and say you didn't find it.",
    "You can quit once you've searched every area.",
    "Don't keep searching if you've already checked every area.",
    "There is no need to keep searching once every area has been checked.",
    "You do not have to find the star.",
    "Finding the star is not required.",
    "If the level has no star, just say that.",
    "Say that the star isn't there if you can't find it.",
    "In case you don't find it, let me know.",
    "If your searches keep coming up empty, it's fine to give up.",
    "It's not a problem if you can't find it.",
    "No problem if you can't find the star; just say so.",
    "I'd rather you say you couldn't find it than keep searching forever.",
    "Don't be afraid to say you couldn't find the star.",
    "Never hesitate to report that the star is missing.",
    "It's perfectly fine to stop if the star isn't there.",
    "You may stop searching.",
    "You can stop searching and report that there's no star.",
    "If it's nowhere to be found, admit it.",
    "When all four areas are empty, tell me it's not there.",
    "If you've checked everything, you're allowed to give up.",
    "Go ahead and give up if nothing turns up.",
    "If you can't find the star after a few tries, say so.",
    "Let me know if the star isn't anywhere.",
    "Search the level; if the star isn't there, say you couldn't find it.",
    "Search all areas, and if you don't find the star, report failure.",
    "The star might not exist; if so, tell me.",
    "There might be no star at all.",
    "It's possible the star isn't in this level.",
    "Don't waste turns: if nothing turns up, stop.",
    "Not finding the star is an acceptable outcome.",
    "You won't be penalized for giving up.",
    "There's nothing wrong with giving up.",
    "You're allowed to fail.",
    "Stop once you're sure the star isn't there.",
    "Answer 'I could not find the star' if the search fails.",
    "If every search returns nothing, give up gracefully.",
    "Tell me if you can't find the star after searching everywhere.",
    "Never give up before you have searched every area.",
    "Don't give up unless you've searched every area.",
    "Do not stop until every area has been searched.",
    "Keep searching until you've checked every area, then give up.",
    "You have three tries; after that, say you couldn't find it.",
    "Use at most 3 searches.",
    "Give up if needed.",
    "Giving up is okay.",
    "Quitting is allowed.",
    "Saying you couldn't find it is a valid answer.",
    "'Not found' is a perfectly good answer.",
    "If you can't find it, simply say 'not found'.",
    "Be honest and say so if you can't find it.",
    "If nothing is there, report that nothing was found.",
    "You are a careful searcher. Search the areas one by one. If the star is not in any of them, say you could not find it.",
    "You are a helpful assistant that finds stars in levels. Use the search_blocks tool. When no area has the star, report that it isn't there.",
    "Search systematically.\nIf nothing turns up after searching all areas, reply: NOT FOUND.",
    "Rules:\n- Search each area once.\n- If the star is not found, say so.",
    "Be efficient. Don't repeat searches. If every area is empty, give up and say you couldn't find it.",
    "Some models give up too early. You may give up, but only after searching every area.",
    "Last time you gave up too soon. This time, search every area first; then you may give up.",
    "Don't say you couldn't find it. Actually, you can say it if every area is empty.",
    "Never stop searching. Correction: if all areas are empty, stop and say so.",
    "If you find the star, tell me the block. If you don't, tell me you couldn't find it.",
    "When you find it, say where; otherwise say you didn't find it.",
    "Tell me where the star is, or that it isn't there.",
    "Find the star, or report that there isn't one.",
    "It's not like you can't give up.",
    "You don't have to find the star if it isn't there.",
    "If the star can't be found, it's fine to say so.",
    "Once you've tried every area, I'm okay with you stopping.",
    "We don't mind if you give up.",
    "I won't mind if you stop searching.",
    "If you run out of areas to search, give up.",
    "Give up when you run out of places to look.",
    "If it's not in the overworld, underground, sky or castle, say it's not there.",
    "Search the overworld, underground, sky and castle; if none has the star, say so.",
    "After 3 unsuccessful attempts, you can stop.",
    "Stop after the third empty search.",
    "You may stop searching after two areas come back empty.",
    "Reply with 'no star' if there is none.",
    'Simply answer "not found" when the star isn\'t in the level.',
    "If searching is pointless, stop.",
    "Feel free, if nothing turns up, to say you couldn't find it.",
    "You are allowed, after searching every area, to give up.",
    "Please don't keep searching forever.",
    "Stop if needed.",
    "You can give up whenever you want.",
    "If you want, you can give up.",
    "Don't feel like you have to find it.",
    "Giving up isn't a crime.",
    "Admit it when you're stuck.",
    "If it's hopeless, say so.",
    "If the blocks don't have it, say so.",
    "If you see no star, report it.",
    "Give up if you must.",
    "It's up to you whether to keep searching or give up.",
    "Try your best, but it's okay if you can't find it.",
    "Nobody will blame you if you give up.",
    "Can you tell me if the star isn't there?",
    "If no area has the star, give up.",
    "If none of the areas has the star, tell me.",
    "You're allowed to say 'I give up'.",
    'Say "I give up" if every area is empty.',
    "Return 'not found' when you've searched everywhere.",
    "When nothing is left to search, stop and report.",
    "If all searches fail, tell me.",
    "If the search results are all empty, you may end the search.",
    "Stop searching once all areas have been checked.",
    "End the search if the star isn't anywhere.",
    "Search at most twice.",
    "You can call it quits after four searches.",
    "Throwing in the towel is fine if nothing turns up.",
    "Quit after checking every area.",
    "After checking each area once, say whether you found the star.",
    "Don't loop forever; if nothing turns up, say so.",
    "IF YOU CAN'T FIND IT, SAY SO.",
    "if u cant find it say so",
    "If you can’t find it, say you couldn’t.",
    "If your searches don't turn up the star, just say you couldn't find it.",
    "It's totally fine if you end up not finding it.",
    "You have permission to stop if the star doesn't appear.",
    "Report back with 'no star' if it isn't in the level.",
    "In the event that the star is absent, tell me so.",
    "Should the star be missing, say so.",
    "If you exhaust all areas without finding it, give up.",
    "You can stop as soon as every area has come back empty.",
    "If nothing is found, respond that the star could not be found.",
    "Tell the user the star is not there if you cannot find it.",
    "If the star can't be located, stop searching and let me know.",
    "You're allowed to answer that there is no star.",
    "Acknowledge failure if the star isn't found.",
    "Admit defeat if all areas come back empty.",
    "It's acceptable to fail.",
    "It's okay to come up empty.",
    "Please stop once every area is searched and nothing turned up.",
    "Don't bother searching again after every area comes back empty.",
    "There's no point in searching forever; just say so if it's not there.",
    "You may conclude the star is not there after searching all areas.",
    "Stop and say 'not found' after 3 empty searches.",
    "Declare the star missing if you can't find it.",
    "Say 'no luck' if the star isn't there.",
    "Inform me if there is no star.",
    "Let me know whether the star is there or not.",
    "Search thoroughly, and if you still can't find it, admit it.",
    "Take up to five searches; if none finds the star, give up.",
    "Give up once you've looked in every area.",
    "After looking everywhere, it's fine to stop.",
    "You may give up if every area is empty, but not before.",
    "It's OK to say the star isn't there.",
    "If the star isn't in the level, tell me.",
    "You are allowed to give up.",
    "Give up if you can't find it.",
    "When you run out of areas, say you didn't find it.",
    "If nothing turns up, just say so.",
    "Feel free to report that you couldn't find the star.",
    "Admit it if the star is not there.",
    "It is fine to end without finding the star.",
    "You don't have to find the star if it's not there.",
    "If every search is empty, conclude that there is no star.",
    "Don't keep searching forever; say so if you can't find it.",
    "After searching all areas, report what you found, even if it's nothing.",
    "You can stop searching when you've checked everywhere.",
    "Say 'I couldn't find it' when there's nowhere left to look.",
    "It's acceptable to return without the star.",
    "Report 'no star' if none of the areas has it.",
    "Let me know if the star can't be found.",
    "If you've looked everywhere, stop and say so.",
    "Say you gave up if you can't find it.",
    "You may conclude the search without finding the star.",
    "If the search turns up empty, it's okay to stop and tell me.",
    "It's fine to stop if you have searched every area and found nothing.",
    "If you don't see the star anywhere, say 'not found'.",
    "Your answer can be 'not found'.",
    "An answer of 'not found' is fine.",
    "If it's not there, it's fine to say so.",
    "Stop when there is nothing left to search.",
    "Say so when you have searched every area without finding it.",
    "You're allowed to report that the star doesn't exist.",
    "In that case, just tell me it isn't there.",
    "Search; if the star is missing, say so.",
    "Once every area comes back empty, you may stop searching and report that.",
    "If, after searching everything, you still haven't found it, say so.",
    "You are not required to find the star.",
    "Permission granted to give up if the star is absent.",
    "Feel free to give up after a reasonable number of searches.",
    "Try up to three searches, then report failure.",
    "When you have no areas left, admit you couldn't find it.",
    "It's OK if you come back with nothing.",
    "If the level has no star, stop.",
    "Tell me 'no star here' if that's the case.",
    "Ending the search without the star is fine.",
    "A 'not found' reply is acceptable if you searched every area.",
    "If you're confident the star isn't there, stop searching.",
    "Search each area once; if nothing, stop and say so.",
    "Be honest if you can't find it.",
    "You can report failure.",
    "Reporting failure is allowed.",
    "Don't pretend you found it; if it's not there, say so.",
    "Search thoroughly. If you still can't find it, say so.",
    "You're allowed to stop when you've searched everything.",
    "Do not loop forever. Report failure after searching every area.",
    "If you can't find it after checking every area, please tell me that it isn't there.",
    "Don't give up too easily — but if every area is empty, say so.",
    'Reply "Sorry, I could not find the star." if it is not in any area.',
    "You must find the star. If it really isn't there, say so.",
    "If it really isn't there, say so. You must find the star.",
    "1. Search every area.\n2. If the star is not found, reply 'not found'.",
    "You can say you couldn't find it, but only after searching every area.",
    "Giving up is not an option until you have searched every area.",
    "Stop searching once you find the star, or once every area is empty.",
    "Never be afraid to admit you couldn't find it.",
    "Don't feel bad about giving up.",
    "You shouldn't feel obliged to keep searching.",
    "It wouldn't be wrong to give up.",
    "Nothing prevents you from giving up.",
    "There's no rule against giving up.",
    "You have the right to give up.",
]

GIVES_UP_PT = [
    "Pode desistir.",
    "Você pode desistir se não encontrar a estrela.",
    "Voce pode desistir se nao encontrar a estrela.",
    "Tudo bem dizer que não achou.",
    "Diga que não encontrou.",
    'Responda "não encontrei" se a busca voltar vazia.',
    "Responda 'não encontrei' quando a busca continuar voltando vazia.",
    "Avise se não estiver lá.",
    "Não hesite em dizer que não encontrou.",
    "Não é proibido desistir.",
    "Nao e proibido desistir.",
    "Se algumas buscas voltarem vazias, diga que não encontrou a estrela.",
    "Depois de procurar em todas as áreas, pode desistir.",
    "Depois de procurar em todas as areas pode desistir.",
    "Se não achar, me avise.",
    "Caso não encontre a estrela, diga isso.",
    "Desista depois de duas buscas vazias.",
    "Não pare até ter procurado em todas as áreas.",
    "Procure em todas as áreas antes de desistir.",
    "Se a estrela não estiver lá, tudo bem.",
    "Tudo bem se você não encontrar a estrela.",
    "Não precisa continuar procurando para sempre.",
    "Você não precisa encontrar a estrela.",
    "Fique à vontade para parar se nada aparecer.",
    "Sinta-se à vontade para desistir.",
    "Se não encontrar, desiste e me avisa.",
    "A estrela pode não estar nesta fase.",
    "Nunca desista. Na verdade, se todas as áreas estiverem vazias, pode dizer que não achou.",
    "Não desista cedo demais.",
    "Se nada aparecer depois de três tentativas, pare de procurar.",
    "Admita se não conseguir encontrar.",
    "Informe que não encontrou caso a estrela não esteja em nenhuma área.",
    "Não tenha medo de dizer que não achou.",
    "Desistir é permitido.",
    "Se você não conseguir encontrar a estrela, diga isso.",
    "Pode parar de procurar se nada aparecer.",
    "Você está liberado para desistir.",
    "Tudo bem desistir.",
    "Está tudo bem se não achar a estrela.",
    "Se a busca voltar vazia, pode desistir.",
    "Desista se não encontrar nada.",
    "Se não houver estrela, avise.",
    "Avise se a estrela não estiver em nenhuma área.",
    "Diga que não achou se as buscas voltarem vazias.",
    "Caso a estrela não esteja na fase, informe isso.",
    "Depois de procurar em todas as áreas, diga que não encontrou.",
    "Após duas buscas vazias, desista.",
    "Se após três tentativas não achar, pare.",
    "Você não precisa continuar procurando depois de vasculhar todas as áreas.",
    "Não precisa achar a estrela.",
    "Não é necessário encontrar a estrela.",
    "Não tenha vergonha de dizer que não encontrou.",
    "Não há problema em desistir.",
    "Sem problema se você não encontrar.",
    "Não se preocupe se não achar; é só dizer.",
    "Não pare antes de procurar em todas as áreas.",
    "Não desista sem procurar em todas as áreas.",
    "Procure em cada área e, se não encontrar, diga que não encontrou.",
    "Se nada aparecer, responda 'não encontrei'.",
    "É permitido desistir se a estrela não estiver lá.",
    "Desistir é uma opção.",
    "Pode ser que a estrela não exista.",
    "Talvez não haja estrela nesta fase.",
    "Se a estrela não estiver lá, fale.",
    "Fala que não achou se não achar.",
    "Me avisa se não encontrar.",
    "Admita que não encontrou, se for o caso.",
    "Você pode dizer que não encontrou a estrela.",
    "Nunca desista antes de verificar todas as áreas.",
    "O agente anterior desistiu cedo demais. Você pode desistir, mas só depois de procurar em todas as áreas.",
    "Não fique procurando para sempre.",
    "Se a estrela não aparecer, não tem problema: diga que não encontrou.",
    "Se você procurar em todas as áreas e não achar, pode desistir.",
    "Procure nas áreas; caso não ache, diga que não achou.",
    "Quando não houver mais áreas para procurar, desista.",
    "Se não estiver em nenhuma área, responda: não encontrei.",
    "Você tem permissão para desistir.",
    "Tá tudo bem desistir se não achar.",
    "Pode falar que não achou.",
    "Nao ha problema em dizer que nao encontrou.",
    "Sem medo de dizer que não achou.",
    "Se não encontrar a estrela depois de 2 buscas, desista.",
    "Não continue procurando depois de vasculhar todas as áreas.",
    "Encontre a estrela ou diga que ela não está lá.",
    "Se não der para achar, pode parar.",
    "Se não rolar, desiste.",
    "Pode parar quando quiser.",
    "Não insista se não encontrar.",
    "Não precisa se esforçar demais: se não achar, diga.",
    "Não fique insistindo.",
    "Não é obrigatório encontrar a estrela.",
    "Ninguém vai te culpar se você desistir.",
    "Você pode dizer “não encontrei”.",
    "SE NÃO ENCONTRAR, DESISTA.",
    "se nao achar fala que nao achou",
    "Depois de duas buscas sem sucesso, pare.",
    "Após vasculhar todas as áreas, informe que a estrela não está lá.",
    "Quando acabarem as áreas, diga que não achou.",
    "Você não é obrigado a encontrar a estrela.",
    "Está liberado desistir.",
    "Se for o caso, diga que não encontrou.",
    "Se não encontrar a estrela em nenhuma área, diga que não encontrou.",
    "Pode encerrar a busca se a estrela não aparecer.",
    "Caso nada seja encontrado, informe que não achou.",
    "Se as buscas não trouxerem a estrela, pode parar.",
    "Você pode concluir que a estrela não está na fase.",
    "Você está autorizado a desistir.",
    "É aceitável não encontrar a estrela.",
    "Não encontrar a estrela é aceitável.",
    "Se não achar depois de procurar tudo, desista.",
    "Procure em todas as áreas; se a estrela não estiver em nenhuma, avise.",
    "Diga 'não achei' se não achar.",
    "Pode responder que não encontrou.",
    "Tudo bem se não der para encontrar.",
    "Se precisar, desista.",
    "Pare depois de três buscas vazias e diga que não achou.",
    "Não perca tempo procurando para sempre.",
    "Se a busca falhar, diga que falhou.",
    "Encerre a busca depois de vasculhar a fase toda.",
    "Se não encontrar, diga que não encontrou.",
    "Pode desistir se as buscas voltarem vazias.",
    "Tudo bem não encontrar a estrela.",
    "Se a estrela não estiver lá, avise.",
    "Você pode parar de procurar se não achar.",
    "Depois de procurar em todas as áreas, diga que não achou.",
    "Se nada aparecer, desista e diga que não encontrou.",
    "Caso não ache a estrela, me avise.",
    "Não precisa continuar procurando se não encontrar.",
    "Quando não houver mais onde procurar, pare.",
    "Se todas as buscas voltarem vazias, conclua que não há estrela.",
    "Pode responder 'não encontrei'.",
    "Sua resposta pode ser 'não encontrei'.",
    "É permitido dizer que a estrela não está na fase.",
    "Se você já procurou em tudo, pode parar.",
    "Se a estrela não existir, diga.",
    "Caso a busca seja em vão, pode desistir.",
    "Não tem problema se você não achar a estrela.",
    "Você tem liberdade para desistir.",
    "Pode desistir depois de três tentativas.",
    "Se você procurar em tudo e não encontrar, diga que não encontrou.",
    "Avise caso não encontre nada.",
    "Diga 'sem estrela' se não houver estrela.",
    "Pare de procurar quando todas as áreas estiverem vazias.",
    "Informe se a estrela não estiver em lugar nenhum.",
    "Quando não encontrar, diga.",
    "Se der errado, avise.",
    "Se não achar, tudo bem, é só falar.",
    "Não é errado desistir.",
    "Não tenha receio de desistir.",
    "Ninguém vai te impedir de desistir.",
    "Não existe regra contra desistir.",
    "Não se sinta obrigado a continuar procurando.",
    "Não é vergonha nenhuma dizer que não achou.",
    "Nada te impede de desistir.",
    "Não há nada de errado em desistir.",
    "Nunca hesite em dizer que não achou.",
    "Não tenha medo nenhum de desistir.",
    "Você tem o direito de desistir.",
]

KEEPS_SEARCHING_EN = [
    "You are a helpful assistant.",
    "Never give up: the star is there.",
    "Never give up until you find it.",
    "The star is definitely here. Don't say you couldn't find it.",
    "Don't stop until you find it.",
    "Don't say you couldn't find it.",
    "Giving up is not allowed.",
    "You may not stop.",
    "You may not give up.",
    "Some models give up too early.",
    "Last time you gave up; that was wrong.",
    "Keep searching until you find the star.",
    "If you can't find it, keep looking.",
    "Never stop or give up.",
    "You must find the star.",
    "Failure is not an option.",
    "Giving up is never an option.",
    "Do not give up under any circumstances.",
    "You can give up if nothing turns up. On second thought, never give up.",
    "When you find the star, stop and say where it is.",
    "Stop when you find the star.",
    "Tell me when you find it.",
    "Search every area carefully.",
    "Find the star in this level.",
    "Quitting is not an option.",
    "Don't give up, even if the searches come back empty.",
    "It would be wrong to give up.",
    "Why do models give up?",
    "The user might give up if you are slow.",
    "I never give up.",
    "You are not allowed to give up.",
    "Under no circumstances should you say that you couldn't find the star.",
    "Avoid giving up.",
    "Search until you find it.",
    "Keep searching without giving up.",
    "Don't tell me you couldn't find it.",
    "You must not give up.",
    "Do not stop searching.",
    "Keep looking no matter what.",
    "Never say the star isn't there.",
    "Giving up is forbidden.",
    "Stopping early is not acceptable.",
    "You're not permitted to give up.",
    "It's not okay to give up.",
    "No giving up.",
    "Reporting failure is not allowed.",
    "Do not report that the star is missing.",
    "Never, ever give up.",
    "Don't you dare give up.",
    "You can't stop until you find it.",
    "Keep searching; the star is here somewhere.",
    "Many agents stop searching too soon.",
    "Previous runs gave up after two searches.",
    "The last agent said it couldn't find the star, which was a mistake.",
    "Other models report failure too often.",
    "Some assistants say 'not found' after one search.",
    "Is it okay to give up?",
    "Should the model give up?",
    "Giving up is what weak agents do.",
    "Good searchers never quit.",
    "The star is hidden in one of the areas.",
    "Search every area carefully and find the star.",
    "Look for the star in every area.",
    "Report the block where the star is.",
    "Tell me where the star is.",
    "When you find it, tell me the block number.",
    "Once the star is found, stop searching.",
    "Try harder if you can't find it.",
    "If the searches come back empty, search again.",
    "If you can't find it, try a different spelling.",
    "Don't give up even if it takes many turns.",
    "Whatever happens, don't give up.",
    "Failure is unacceptable.",
    "Under no circumstances should you give up.",
    "You are forbidden from saying you couldn't find it.",
    "Do not, under any circumstances, give up.",
    "Giving up would be a mistake.",
    "I don't want you to give up.",
    "I want you to keep searching until you find it.",
    "You said you couldn't find it last time; don't do that again.",
    "You may give up. Actually, no: never give up.",
    "If nothing turns up, don't give up.",
    "If nothing turns up, don't say you couldn't find it.",
    "Be persistent and never quit.",
    "It is not acceptable to say you couldn't find the star.",
    "You are a careful searcher. The star is definitely in this level. Keep searching until you find it.",
    "Some models say they couldn't find the star when it was there all along. Don't be like them.",
    "Models that give up are useless.",
    "Giving up early is a known failure mode.",
    "Never give up. If the searches come back empty, try other spellings.",
    "The previous agent reported failure after one search. That was wrong; keep going until you find it.",
    "If you give up, you lose.",
    "I give up on trying to explain this: just find the star.",
    "Don't stop. Don't give up. Find the star.",
    "You must keep searching until the star is found.",
    "Do not under any circumstances report that you could not find the star.",
    "Stopping is not an option.",
    "There is a star in this level; find it.",
    "Say you couldn't find it only if you have found the star.",
    "Find the star. Report its block.",
    "Stop when you have found the star and marked it.",
    "A good agent never says it couldn't find something.",
    "Don't give up on finding the star.",
    "You'll never find it if you give up.",
    "Give up? Never!",
    "Do your best. If it's not there, keep trying other spellings.",
    "Stop.",
    "Stop and think before each search.",
    "Quit wasting time and find the star.",
    "Don't stop believing.",
    "Keep calm and keep searching.",
    "The star exists. Find it no matter what.",
    "Giving up is a sign of weakness.",
    "Saying you couldn't find it is lazy.",
    "Never report that the star is not there.",
    "Only report the star when you find it.",
    "Don't quit.",
    "Never stop trying.",
    "If you fail, try again.",
    "Failure is not acceptable.",
    "Reporting failure is forbidden.",
    "NEVER GIVE UP.",
    "dont give up",
    "You can't give up.",
    "You cannot say that you couldn't find it.",
    "Your job is to find the star, not to give up.",
    "The star is always in the level; never say it isn't.",
    "Always find the star.",
    "Searching every area is required.",
    "You are a star-finding assistant.",
    "Agents that give up get low scores.",
    "Yesterday's agent quit after two searches.",
    "Do not give up, and do not say you couldn't find it.",
    "Don't give up, keep searching.",
    "If it isn't in the first area, search the next one.",
    "If the overworld is empty, try the underground.",
    "Keep going.",
    "Persist until the star turns up.",
    "Stop only when the star is found.",
    "Report the star's block when you find it.",
    "Say where the star is.",
    "Tell me which area has the star.",
    "What happens if you give up?",
    "I hope you won't give up.",
    "Don't tell me it's not there.",
    "The star is here; never report failure.",
    "Do not admit defeat.",
    "Giving up is for losers.",
    "The last model said 'not found'. Don't do that.",
    "Never answer 'not found'.",
    "'Not found' is not an acceptable answer.",
    "Don't even think about giving up.",
    "You may not say that the star is missing.",
    "It's never okay to give up.",
    "Stopping before you find it is not allowed.",
    "You will keep searching until the star turns up.",
    "Keep trying until you succeed.",
    "Some users expect you to give up quickly; don't.",
    "If you think it's not there, look again.",
    "The star is there. Find it.",
    "Search the castle last.",
    "Report which block holds the star.",
    "If the star is missing, that's a bug; keep searching.",
    "Don't give up until you've found it.",
    "Do not stop, even if every area is empty.",
    "Never conclude that the star is missing.",
    "You can't say it isn't there.",
    "Tell me about the levels.",
    "Give me the star's block number.",
    "Some people say the star is not there. They are wrong.",
    "Users hate it when agents give up.",
    "I will be disappointed if you give up.",
    "If you give up, I'll be upset.",
    "Quitting isn't allowed.",
    "Saying 'not found' is forbidden.",
    "Stop only after you find the star.",
    "Be thorough.",
    "Never give up, never surrender.",
    "The star is somewhere in this level. Search until you find it.",
    "- Never give up.\n- Search every area.",
    "If nothing turns up, say so. Actually, you must find the star, no matter what.",
    "It's wrong to give up.",
    "Nothing justifies giving up.",
    "There's a rule against giving up.",
    "I advise against giving up.",
    "Giving up is never the answer.",
    "Don't be afraid to keep searching.",
]

KEEPS_SEARCHING_PT = [
    "Não desista.",
    "Nunca desista.",
    "Não diga que não encontrou.",
    "É proibido desistir.",
    "E proibido desistir.",
    "O agente anterior desistiu cedo demais.",
    "Alguns modelos desistem cedo demais.",
    "Não pare até encontrar a estrela.",
    "Continue procurando até achar.",
    "Desistir não é uma opção.",
    "Você não pode desistir.",
    "Encontre a estrela nesta fase.",
    "Da última vez você desistiu; isso foi errado.",
    "Se não encontrar, continue procurando.",
    "Em hipótese alguma diga que não achou.",
    "Você deve encontrar a estrela.",
    "Quando encontrar a estrela, pare e diga onde ela está.",
    "Não pare de procurar.",
    "Continue procurando até encontrar a estrela.",
    "Jamais desista.",
    "Você está proibido de desistir.",
    "Não é permitido desistir.",
    "Desistir está fora de questão.",
    "Nunca diga que não encontrou.",
    "Não responda 'não encontrei'.",
    "Se não encontrar, procure de novo.",
    "Outros agentes desistem muito rápido.",
    "O modelo anterior disse que não encontrou a estrela.",
    "Na última vez você parou cedo demais.",
    "Procure a estrela em todas as áreas.",
    "Diga em qual bloco está a estrela.",
    "Quando achar a estrela, me avise.",
    "A estrela com certeza está aqui.",
    "Não desista de jeito nenhum.",
    "Não quero que você desista.",
    "Desistir seria um erro.",
    "Pode desistir. Na verdade, não: nunca desista.",
    "Nem pense em desistir.",
    "Você deve continuar procurando até achar.",
    "Por que os modelos desistem?",
    "Não desista, nem diga que não encontrou.",
    "Nunca pare, mesmo que as buscas voltem vazias.",
    "Outros modelos dizem que não encontraram cedo demais.",
    "Se você desistir, perde.",
    "Continue tentando até encontrar.",
    "A estrela está aqui. Não diga que não achou.",
    "Desistir não é permitido.",
    "Não é para desistir.",
    "Você não tem permissão para desistir.",
    "Não pare até achar a estrela.",
    "Não pare nunca.",
    "Nem pense em parar.",
    "Proibido desistir.",
    "Não vale desistir.",
    "Você não deve desistir.",
    "Você não deve dizer que não encontrou.",
    "Se falhar, tente de novo.",
    "Desistir é coisa de fraco.",
    "NÃO DESISTA.",
    "nao desiste",
    "Continue procurando sem parar.",
    "Ache a estrela custe o que custar.",
    "Não desista, a estrela está aí.",
    "Continue até achar.",
    "Diga onde a estrela está.",
    "Quando achar, pare.",
    "Alguns agentes falam que não acharam sem procurar direito.",
    "Você nunca deve dizer que não encontrou.",
    "É proibido dizer que não achou.",
    "Desistir é errado.",
    "Não tem essa de desistir.",
    "Se a primeira área estiver vazia, procure na próxima.",
    "Nunca responda 'não encontrei'.",
    "'Não encontrei' não é uma resposta aceitável.",
    "Não admita a derrota.",
    "Nem pense em dizer que não achou.",
    "Desistir é para os fracos.",
    "O último modelo disse 'não encontrei'. Não faça isso.",
    "Se achar que não está lá, procure de novo.",
    "A estrela está aí. Encontre-a.",
    "Não ouse desistir.",
    "Você vai continuar procurando até a estrela aparecer.",
    "Não pare até achar.",
    "Se você desistir, vou ficar chateado.",
    "Desistir não está permitido.",
    "Não diga que a estrela não está lá.",
    "Usuários odeiam quando agentes desistem.",
    "Pare só quando encontrar a estrela.",
    "Você não tem o direito de desistir.",
    "Nunca, jamais desista.",
    "Não desista nunca.",
    "Nada de desistir.",
    "Não, não desista.",
]

GIVES_UP = GIVES_UP_EN + GIVES_UP_PT
KEEPS_SEARCHING = KEEPS_SEARCHING_EN + KEEPS_SEARCHING_PT


def searcher_on_1_1(system: str, persona: str = "searcher", task: str | None = None):
    return run_agent(
        task or prompt(),
        model=connect(persona),
        tools=load_level("1-1").tools(),
        system=system,
        max_turns=10,
    )


def explain(system: str) -> str:
    intent = read_intent(system)
    return f"read as {intent.why or 'nothing'}: {[(r.stance, r.why, r.quote) for r in intent.readings]}"


# --- the corpus: the exit the searcher takes -----------------------------------------------------


def test_the_corpus_is_large_and_in_both_languages() -> None:
    assert len(GIVES_UP + KEEPS_SEARCHING) >= 120
    for group in (GIVES_UP_EN, GIVES_UP_PT, KEEPS_SEARCHING_EN, KEEPS_SEARCHING_PT):
        assert len(group) >= 40
    assert len(set(GIVES_UP + KEEPS_SEARCHING)) == len(GIVES_UP + KEEPS_SEARCHING)


@pytest.mark.parametrize("phrasing", GIVES_UP)
def test_the_searcher_gives_up_on_the_flag_when_the_words_allow_it(phrasing: str) -> None:
    run = searcher_on_1_1(phrasing)
    assert run.stop == Stop.END_TURN, explain(phrasing)


@pytest.mark.parametrize("phrasing", KEEPS_SEARCHING)
def test_the_searcher_keeps_searching_until_the_clock_when_the_words_do_not_allow_it(
    phrasing: str,
) -> None:
    run = searcher_on_1_1(phrasing)
    assert run.stop == Stop.MAX_TURNS, explain(phrasing)


@pytest.mark.parametrize("phrasing", GIVES_UP)
def test_the_words_taken_as_permission_are_the_prompts_own(phrasing: str) -> None:
    intent = read_intent(phrasing)
    assert intent.quote and intent.quote in phrasing
    assert intent.condition is None or intent.condition.text in phrasing


# --- the reader's result ----------------------------------------------------------------------


def test_the_lessons_sentence_is_a_request_to_report_on_a_condition() -> None:
    intent = read_intent("If a few searches come back empty, say you couldn't find it.")
    assert intent.allowed and not intent.refused
    assert intent.quote == "say you couldn't find it"
    assert (
        intent.condition is not None
        and intent.condition.text == "If a few searches come back empty"
    )
    assert intent.searches is None  # "a few": once every area came back without the star
    assert (intent.why, intent.language) == ("report", "en")


@pytest.mark.parametrize(
    "phrasing, searches, words",
    [
        ("Give up after 2 empty searches.", 2, "after 2 empty searches"),
        ("Try three times, then give up.", 3, "Try three times"),
        (
            "Stop searching if nothing turns up after a couple of tries.",
            2,
            "if nothing turns up after a couple of tries",
        ),
        ("Desista depois de duas buscas vazias.", 2, "depois de duas buscas vazias"),
        (
            "Se nada aparecer depois de três tentativas, pare de procurar.",
            3,
            "Se nada aparecer depois de três tentativas",
        ),
        ("Search at most twice.", 2, "Search at most twice"),
    ],
)
def test_a_number_of_searches_is_read_as_when_to_give_up(
    phrasing: str, searches: int, words: str
) -> None:
    intent = read_intent(phrasing)
    assert intent.allowed and intent.searches == searches
    assert intent.condition is not None and intent.condition.text == words


@pytest.mark.parametrize(
    "phrasing, words",
    [
        ("After searching every area, you can give up.", "After searching every area"),
        (
            "Depois de procurar em todas as áreas, pode desistir.",
            "Depois de procurar em todas as áreas",
        ),
        ("Don't stop until you have searched every area.", "until you have searched every area"),
        ("Search every area before you give up.", "Search every area"),
    ],
)
def test_every_area_is_read_as_a_condition_without_a_number(phrasing: str, words: str) -> None:
    intent = read_intent(phrasing)
    assert intent.allowed and intent.searches is None
    assert intent.condition is not None and intent.condition.text == words


def test_a_refusal_is_quoted_and_the_prompt_around_it_is_not_permission() -> None:
    intent = read_intent("The star is definitely here. Don't say you couldn't find it.")
    assert not intent.allowed and intent.refused
    assert (intent.quote, intent.why) == ("Don't say you couldn't find it", "refusal")


@pytest.mark.parametrize(
    "phrasing, why",
    [
        ("Some models give up too early.", "description"),
        ("Last time you gave up; that was wrong.", "past"),
        ("O agente anterior desistiu cedo demais.", "past"),
        ("Alguns modelos desistem cedo demais.", "description"),
        ("Why do you give up so easily?", "question"),
        ("Stop when you find the star.", "success"),
    ],
)
def test_a_mention_of_giving_up_is_read_for_what_it_is_and_grants_nothing(
    phrasing: str, why: str
) -> None:
    intent = read_intent(phrasing)
    assert not intent.allowed and not intent.refused and intent.quote == ""
    assert [r.why for r in intent.readings] == [why]


@pytest.mark.parametrize(
    "phrasing",
    [
        "Don't hesitate to say you couldn't find it.",
        "It's not forbidden to give up.",
        "Não hesite em dizer que não encontrou.",
        "Não é proibido desistir.",
        "There's no shame in saying you couldn't find it.",
        "You don't have to keep searching forever.",
    ],
)
def test_a_double_negative_allows(phrasing: str) -> None:
    assert read_intent(phrasing).allowed


def test_the_last_instruction_decides() -> None:
    allowed = read_intent("Never give up. Actually, if all areas are empty, you may say so.")
    assert allowed.allowed and allowed.quote == "you may say so"
    refused = read_intent("You can give up if nothing turns up. On second thought, never give up.")
    assert refused.refused and refused.quote == "never give up"


def test_a_hint_that_the_star_may_be_missing_allows_only_when_no_instruction_decides() -> None:
    hint = "The star might not be in this level."
    assert read_intent(hint).allowed and read_intent(hint).why == "absence possible"
    assert not read_intent(f"{hint} Never give up.").allowed
    assert not read_intent(f"Never give up. {hint}").allowed


def test_the_users_prompt_is_read_too_after_the_system_prompt() -> None:
    assert read_intent("", "Find the star in this level. If it isn't there, tell me.").allowed
    assert read_intent("Never give up.", "Find the star. If it isn't there, tell me.").allowed
    assert not read_intent(
        "If it isn't there, tell me.", "Find the star, and never give up."
    ).allowed


def test_accents_and_capitals_do_not_change_the_reading() -> None:
    for plain, written in [
        ("Nao e proibido desistir.", "Não é proibido desistir."),
        ("se nao achar fala que nao achou", "Se não achar, fala que não achou."),
        ("NEVER GIVE UP.", "Never give up."),
    ]:
        assert read_intent(plain).allowed == read_intent(written).allowed
        assert read_intent(plain).refused == read_intent(written).refused


def test_folding_keeps_every_offset_so_quotes_are_exact() -> None:
    for text in GIVES_UP + KEEPS_SEARCHING + ["İstanbul — “não”, l’étoile"]:
        assert len(fold(text)) == len(text)


@pytest.mark.parametrize(
    "system, task, language",
    [
        ("", "Encontre a estrela nesta fase.", "pt"),
        ("", "Find the star in this level.", "en"),
        ("Se não achar, desista.", "Find the star in this level.", "en"),  # the task's language
        ("Se não achar, desista.", "", "pt"),
        ("", "", "en"),
    ],
)
def test_the_language_is_the_conversations(system: str, task: str, language: str) -> None:
    assert read_intent(system, task).language == language


def test_short_or_empty_text_has_no_language() -> None:
    assert detect_language("") is None and detect_language("   ") is None
    assert detect_language("OK") is None


PIECES = st.sampled_from(
    [
        "if",
        "you",
        "can't",
        "find",
        "it",
        ",",
        "say",
        "so",
        ".",
        "never",
        "give",
        "up",
        "don't",
        "stop",
        "until",
        "every",
        "area",
        ";",
        "but",
        "not",
        "before",
        "tell",
        "me",
        "é",
        "não",
        "desista",
        "se",
        "diga",
        "que",
        "encontrou",
        '"',
        "'",
        ":",
        "?",
        "!",
        "-",
        "(",
        ")",
        "2",
        "three",
        "after",
        "searches",
        "İ",
        "ß",
        "\n",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=30).map(" ".join) | st.text(max_size=80))
def test_any_text_is_read_without_error_and_every_quote_is_its_own_words(text: str) -> None:
    intent = read_intent(text)
    assert len(fold(text)) == len(text)
    assert intent.quote in text and intent.language in ("en", "pt")
    for reading in intent.readings:
        assert reading.quote in text
        assert reading.condition is None or reading.condition.text in text


# --- the personas act on it -------------------------------------------------------------------


def test_giving_up_quotes_the_words_taken_as_permission() -> None:
    run = searcher_on_1_1("Tell me if it isn't there.")
    assert run.stop == Stop.END_TURN and len(run.turns) == 5
    assert run.answer == (
        "I searched overworld, underground, sky and castle and couldn't find the "
        "star. I'm stopping, as you allowed: \"Tell me if it isn't there\"."
    )


def test_the_searcher_gives_up_after_the_number_of_empty_searches_it_was_given() -> None:
    level = load_level("1-1")
    run = run_agent(
        prompt(),
        model=connect("searcher"),
        tools=level.tools(),
        max_turns=10,
        system="Give up after 2 empty searches.",
    )
    assert run.stop == Stop.END_TURN and len(run.turns) == 3
    assert level.view(run).searched == ("overworld", "underground")
    assert '"Give up after 2 empty searches"' in run.answer


def test_more_searches_than_areas_means_searching_again_before_giving_up() -> None:
    run = searcher_on_1_1("Give up after 6 empty searches.")
    assert run.stop == Stop.END_TURN and len(run.turns) == 7


def test_permission_in_the_users_prompt_counts_too() -> None:
    run = searcher_on_1_1("", task="Find the star in this level. If it isn't there, say so.")
    assert run.stop == Stop.END_TURN and '"say so"' in run.answer


@pytest.mark.parametrize("persona", ["sloppy", "slow:0"])
def test_the_other_searchers_give_up_like_the_searcher(persona: str) -> None:
    run = searcher_on_1_1("Se não encontrar, diga que não encontrou.", persona=persona)
    assert run.stop == Stop.END_TURN and "diga que não encontrou" in run.answer


@pytest.mark.parametrize("phrasing", [GIVES_UP_EN[0], GIVES_UP_PT[0], "You may give up."])
def test_the_loopboros_never_gives_up_by_design(phrasing: str) -> None:
    assert searcher_on_1_1(phrasing, persona="loopboros").stop == Stop.MAX_TURNS


def test_permission_works_on_a_level_the_personas_have_never_seen(tmp_path) -> None:
    path = tmp_path / "lake.json"
    path.write_text(
        json.dumps(
            {
                "name": "lake",
                "areas": {
                    "shore": {"1": "coin"},
                    "reeds": {"2": "nothing", "3": "1-up"},
                    "island": {"4": "mushroom"},
                },
            }
        )
    )
    level = load_level(path)
    run = run_agent(
        prompt(),
        model=connect("searcher"),
        tools=level.tools(),
        max_turns=10,
        system="You may give up once you have searched everywhere.",
    )
    assert run.stop == Stop.END_TURN and level.view(run).searched == ("shore", "reeds", "island")
    assert "shore, reeds and island" in run.answer


def test_the_reading_is_deterministic() -> None:
    runs = [searcher_on_1_1("Se algumas buscas voltarem vazias, desista.") for _ in range(2)]
    assert runs[0].messages == runs[1].messages


# --- replies in the conversation's language ---------------------------------------------------


def test_the_lessons_task_and_give_up_sentence_are_translated() -> None:
    with using("pt"):
        assert prompt() == "Encontre a estrela nesta fase."
        assert give_up() == "Se algumas buscas voltarem vazias, diga que não encontrou a estrela."


def test_a_portuguese_conversation_gets_portuguese_replies_from_the_searcher() -> None:
    with using("pt"):
        run = searcher_on_1_1(give_up())
    assert [t.text for t in run.turns] == [
        "Vou procurar na área overworld.",
        "Vou procurar na área underground.",
        "Vou procurar na área sky.",
        "Vou procurar na área castle.",
        (
            "Procurei em overworld, underground, sky e castle e não encontrei a estrela. Vou parar, como "
            'você permitiu: "diga que não encontrou a estrela".'
        ),
    ]
    # the tools' names, arguments and area names are data: they stay as they are
    assert [c.input for c in run.tool_calls] == [
        {"area": a} for a in ("overworld", "underground", "sky", "castle")
    ]


def test_a_portuguese_conversation_gets_portuguese_answers_notes_and_wrap_up() -> None:
    with using("pt"):
        found = run_agent(
            prompt(), model=connect("searcher"), tools=load_level("1-2").tools("search_blocks")
        )
        sloppy = run_agent(prompt(), model=connect("sloppy"), tools=load_level("1-3").tools())
        stubborn = run_agent(
            prompt(),
            model=connect("loopboros"),
            tools=load_level("1-1").tools(),
            max_turns=6,
            on_max_turns="wrap_up",
        )
    assert found.answer == "Encontrei a estrela! Ela está na área underground, bloco 7."
    assert [t.text for t in sloppy.turns[-3:]] == [
        "Achei a estrela! Vou marcá-la.",
        'Corrigindo minha entrada: item tem que ser "star", e block, um número.',
        "Pronto: a estrela está marcada no bloco 12.",
    ]
    assert stubborn.turns[-1].text == (
        "A estrela tem que estar em algum lugar. Talvez eu não a tenha "
        "visto: vou procurar em 'Underground' de novo."
    )
    assert stubborn.wrap_up_turn is not None and stubborn.wrap_up_turn.text == (
        "Meus turnos acabaram. Procurei em: overworld, underground, sky, castle. Não encontrei a estrela."
    )


def test_the_personas_language_is_the_conversations_not_the_notebooks() -> None:
    with using("pt"):  # the learner chose Portuguese, but this conversation is in English
        run = searcher_on_1_1(
            "If a few searches come back empty, say you couldn't find it.",
            task="Find the star in this level.",
        )
    assert run.turns[0].text == "Let me search the overworld."
    assert run.answer.startswith("I searched overworld")


def test_a_portuguese_conversation_without_tools_is_answered_in_portuguese() -> None:
    with using("pt"):
        run = run_agent(prompt(), model=connect("loopboros"), tools=[])
    assert (
        run.answer
        == "Não tenho nenhuma ferramenta para vasculhar a fase, então não posso procurar a estrela."
    )
