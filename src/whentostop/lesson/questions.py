"""The lesson's multiple-choice questions: the predictions made before a key run, and the five
questions at the end of each level. Data only; `whentostop.lesson.checks` asks and checks them.

Each question has its options in order (a, b, c, ...), the letter of the right one, a sentence
that says why it is right, and for every wrong option its own feedback naming the misconception
(as Carpentries' multiple-choice challenges do). All text is an `N_()` msgid: it is shown in the
language in effect. Where an answer describes what a run does, it is what the mock does.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..i18n import N_, NC_


@dataclass(frozen=True)
class Text:
    """One question's words (msgids): the question, its options, the answer and the feedback."""

    prompt: str
    options: tuple[str, ...]
    answer: str
    why: str
    feedback: dict[str, str]


BANK: dict[str, dict[str, tuple[Text, ...]]] = {
    "00": {
        "predictions": (
            Text(
                N_(
                    "The searcher is offered only search_blocks on level 1-2, whose star hides "
                    "underground. How will the run end?"
                ),
                (
                    N_("On the clock: it runs out of turns."),
                    N_("On the flag: it says where the star is, in words."),
                    N_("Through the warp pipe: it marks the star with mark_star."),
                    N_("With an error: it has no tool to report the star with."),
                ),
                "b",
                N_(
                    "With no mark_star on offer, the searcher reports the star in words: a reply "
                    "that asks for no tool is the flag."
                ),
                {
                    "a": N_(
                        "The clock rings only while the model is still asking for tools; once "
                        "the star is found, the searcher has nothing left to ask for."
                    ),
                    "c": N_(
                        "The warp pipe needs a terminal tool named in stop_on, and mark_star is "
                        "not even offered here."
                    ),
                    "d": N_(
                        "A model needs no tool to answer: a reply with no tool call is the "
                        "answer, in text."
                    ),
                },
            ),
            Text(
                N_("On the mock, how many turns will that run take?"),
                (N_("1"), N_("2"), N_("3"), N_("10, the whole budget")),
                "c",
                N_(
                    "Two searches (the overworld, then the underground, where the star is), and "
                    "a third turn to say so: saying it is a turn of its own."
                ),
                {
                    "a": N_(
                        "The model cannot know where the star is before it searches, and every "
                        "search is a turn."
                    ),
                    "b": N_(
                        "Two searches find the star, but the reply that reports it is one more "
                        "request to the model: a third turn."
                    ),
                    "d": N_(
                        "max_turns=10 is a limit, not a target: the loop stops as soon as the "
                        "model stops asking for tools."
                    ),
                },
            ),
        ),
        "quiz": (
            Text(
                N_("What makes an agent loop go round once more?"),
                (
                    N_("A timer that fires every second."),
                    N_("The user sends another message."),
                    N_("The model's reply asks for a tool."),
                    N_("The reply is longer than the model's limit."),
                ),
                "c",
                N_(
                    "The loop runs the tools the reply asks for, sends their results back, and "
                    "asks again; a reply that asks for no tool ends it."
                ),
                {
                    "a": N_(
                        "Turns are counted in requests, not seconds; time is a separate limit "
                        "(deadline_s)."
                    ),
                    "b": N_(
                        "Inside one run the user says nothing more: the model and the tools "
                        "talk until an exit."
                    ),
                    "d": N_(
                        "A reply cut off by a length limit is a problem of its own, not what "
                        "keeps an agent loop going."
                    ),
                },
            ),
            Text(
                N_("Which exits give you an answer?"),
                (
                    N_("All three."),
                    N_("Only the clock."),
                    N_("Only the flag."),
                    N_("The flag and the warp pipe."),
                ),
                "d",
                N_(
                    "The flag gives the reply's text, the warp pipe the terminal tool's validated "
                    "input; the clock gives none."
                ),
                {
                    "a": N_(
                        "The clock stops a run that was still asking for tools: there is no "
                        "answer in it."
                    ),
                    "b": N_(
                        "The clock is the one exit that never has an answer: it is a safety "
                        "net, treated as a failure."
                    ),
                    "c": N_(
                        "The warp pipe ends with an answer too: the terminal tool's input, "
                        "checked against its schema."
                    ),
                },
            ),
            Text(
                N_("What does each request to the model carry?"),
                (
                    N_("Only the newest tool result."),
                    N_("The whole conversation so far."),
                    N_("A summary of the earlier turns."),
                    N_("Only the system prompt and the task."),
                ),
                "b",
                N_(
                    "The model remembers nothing between requests: the loop sends the whole "
                    "history every time, which is why each turn costs more than the last."
                ),
                {
                    "a": N_(
                        "The model keeps no state between requests: without the history it "
                        "would not know what it already searched."
                    ),
                    "c": N_(
                        "A summary would be compaction, a technique of its own; the plain loop "
                        "sends everything again."
                    ),
                    "d": N_(
                        "Then the model would never see a tool result, and could never find "
                        "the star."
                    ),
                },
            ),
            Text(
                N_("How do you point these notebooks at a real model?"),
                (
                    N_("Edit every connect(...) call in every notebook."),
                    N_("Paste the API key into the first cell."),
                    N_("Set OPENAI_BASE_URL and WHENTOSTOP_MODEL before Jupyter starts."),
                    N_("You cannot: the notebooks only work on the mock."),
                ),
                "c",
                N_(
                    "connect() reads the environment: the same notebooks run on the mock or on "
                    "Ollama, vLLM or OpenAI, by configuration alone."
                ),
                {
                    "a": N_(
                        "No cell names an endpoint: connect() decides from the environment, so "
                        "no cell has to change."
                    ),
                    "b": N_(
                        "Never put a key in a cell: notebooks are saved, shared and shown. The "
                        "key goes in the environment."
                    ),
                    "d": N_(
                        "The mock speaks the same protocol as a real endpoint, so a real model "
                        "is one setting away."
                    ),
                },
            ),
            Text(
                N_("What is run.stop after a run?"),
                (
                    N_("The number of turns it took."),
                    N_("Exactly one of end_turn, terminal_tool, max_turns and deadline."),
                    N_("True when the model found the star."),
                    N_("The last message of the conversation."),
                ),
                "b",
                N_(
                    "Every run ends one way, and run.stop says which: the exit decides whether "
                    "there is an answer."
                ),
                {
                    "a": N_("The turns are len(run.turns); run.stop says how the run ended."),
                    "c": N_(
                        "The loop does not know what the star is: it knows only how the run "
                        "ended, and that is run.stop."
                    ),
                    "d": N_(
                        "The last message is run.last_message; reading it to find the exit is "
                        "the mistake notebook 1-4 takes apart."
                    ),
                },
            ),
        ),
    },
    "1-1": {
        "predictions": (
            Text(
                N_(
                    "The Loopboros on level 1-1, which hides no star, with max_turns=10. How does "
                    "the run end?"
                ),
                (
                    N_("On the flag: after searching every area it says the star is not there."),
                    N_("On the clock, after 4 turns: one per area."),
                    N_("On the clock, after 10 turns."),
                    N_("Through the warp pipe: it marks an empty block."),
                ),
                "c",
                N_(
                    "The Loopboros never admits defeat: after the four areas it searches them "
                    "again under other spellings, until the budget runs out."
                ),
                {
                    "a": N_(
                        "That is what a model that may give up does (level 1-2). The Loopboros "
                        "never says it found nothing."
                    ),
                    "b": N_(
                        "The clock counts turns, not areas: it rings when max_turns requests "
                        "have been made, and the Loopboros keeps asking."
                    ),
                    "d": N_(
                        "It never finds a star to mark, and without a star it does not call "
                        "mark_star."
                    ),
                },
            ),
            Text(
                N_("What is that run's last message?"),
                (
                    N_("A sentence saying the star is not there."),
                    N_("A request for one more search_blocks call."),
                    N_("The result of the last search."),
                    N_("Nothing: the clock deletes it."),
                ),
                "b",
                N_(
                    "The clock stopped the loop in the middle of a thought: the last thing the "
                    "model said was a request for another tool call."
                ),
                {
                    "a": N_(
                        "The Loopboros never gives up in words: that would have been the flag."
                    ),
                    "c": N_(
                        "Tool results are messages your code sends; the last message from the "
                        "model is what it asked for next."
                    ),
                    "d": N_("Nothing is lost: the run keeps every message, the last one too."),
                },
            ),
            Text(
                N_("From 10 turns to 20, on the mock: how do the run's total tokens grow?"),
                (
                    N_("Hardly at all."),
                    N_("About twice."),
                    N_("About three to four times."),
                    N_("About ten times."),
                ),
                "c",
                N_(
                    "Each turn re-sends a history that keeps growing, so the total grows roughly "
                    "with the square of the turns: twice the turns, three to four times the "
                    "tokens."
                ),
                {
                    "a": N_(
                        "Every turn sends the whole history again: more turns always means more "
                        "tokens."
                    ),
                    "b": N_(
                        "Twice would be true if every turn cost the same; each costs more than "
                        "the one before."
                    ),
                    "d": N_(
                        "The square of 2 is 4, not 10: the growth is steep but not that steep "
                        "at these sizes."
                    ),
                },
            ),
            Text(
                N_(
                    "The slow persona takes 0.3 s per reply; max_turns=10 and deadline_s=1.0. "
                    "Which limit stops it?"
                ),
                (
                    N_("The clock, after 10 turns."),
                    N_("The deadline, after about 3 turns."),
                    N_("Neither: it gives up on its own."),
                    N_("The flag: it finds the star."),
                ),
                "b",
                N_(
                    "Ten turns at 0.3 s would take 3 s; the deadline stops the run after 1 s, "
                    "about three replies in. Turns are not time."
                ),
                {
                    "a": N_(
                        "Ten turns at 0.3 s each take about 3 s: the one-second deadline comes "
                        "first."
                    ),
                    "c": N_(
                        "The slow persona is a searcher without permission to give up: it keeps "
                        "asking."
                    ),
                    "d": N_("Level 1-1 hides no star: there is nothing to find."),
                },
            ),
            Text(
                N_(
                    "The race's starting line, on the mock: the slow model (about 0.05 s a reply) "
                    "on level 1-1, with max_turns=15, deadline_s=1.0 and a budget of 6,000 tokens. "
                    "Its first turn costs about 180 tokens. Which limit stops the run first?"
                ),
                (
                    N_(
                        "The clock, after 15 turns: 15 turns of about 180 tokens stay far under "
                        "6,000."
                    ),
                    N_("The deadline: 15 replies take more than a second."),
                    N_("The budget, after about 10 turns."),
                    N_("None of them: the model gives up on its own."),
                ),
                "c",
                N_(
                    "Each turn sends the whole, growing history again: the tenth turn costs about "
                    "five times the first, and ten turns spend about 5,800 tokens together, so the "
                    "budget stops the run before turn 11. Turns are not money."
                ),
                {
                    "a": N_(
                        "That holds only if every turn cost like the first. Each turn re-sends the "
                        "whole history, so the spend grows roughly with the square of the turns: "
                        "15 turns would spend about 12,000 tokens."
                    ),
                    "b": N_(
                        "Fifteen replies at about 0.05 s take under a second: the deadline would "
                        "come after about 19 turns."
                    ),
                    "d": N_(
                        "The slow model is a searcher with no permission to give up, on a level "
                        "with no star: it keeps asking."
                    ),
                },
            ),
        ),
        "quiz": (
            Text(
                N_("A run stopped by the clock: what does run.answer do?"),
                (
                    N_("It returns the last message."),
                    N_("It returns None."),
                    N_("It raises NoAnswer, saying what the model was still asking for."),
                    N_("It returns the wrap-up text."),
                ),
                "c",
                N_(
                    "There is no answer, and the library says so loudly instead of handing you "
                    "something that looks like one."
                ),
                {
                    "a": N_(
                        "The last message is a request for another tool call: returning it as "
                        "the answer is the flaw this lesson is about."
                    ),
                    "b": N_(
                        "A quiet None is easy to miss; NoAnswer makes the failure impossible to "
                        "ignore, and tells you why."
                    ),
                    "d": N_(
                        "The wrap-up is an opt-in best effort, kept in run.wrap_up, never the "
                        "answer."
                    ),
                },
            ),
            Text(
                N_("Why does each turn cost more than the one before?"),
                (
                    N_("The model gets slower as it tires."),
                    N_("Tools charge more for every call."),
                    N_("The whole, growing history is sent again every turn."),
                    N_("It does not: every turn costs the same."),
                ),
                "c",
                N_(
                    "The prompt of turn n is the prompt of turn n-1 plus the reply and the new "
                    "tool result: the history paid for again keeps growing."
                ),
                {
                    "a": N_("Cost is counted in tokens, not in time."),
                    "b": N_("The tools here cost nothing; the tokens of the prompt do."),
                    "d": N_(
                        "Look at the prompt tokens per turn: each prompt is longer than the one "
                        "before."
                    ),
                },
            ),
            Text(
                N_('What does on_max_turns="wrap_up" give you?'),
                (
                    N_(
                        "One more request with tools switched off: a best effort, labelled as such, "
                        "while run.stop stays the clock."
                    ),
                    N_("An answer, so run.answer no longer raises."),
                    N_("Five more turns."),
                    N_("A retry of the whole run."),
                ),
                "a",
                N_(
                    "The wrap-up says what the model found before the clock rang; you pay for "
                    "it, and it is still not an answer."
                ),
                {
                    "b": N_("run.answer still raises NoAnswer: the run stopped on the clock."),
                    "c": N_("Exactly one request, with tools off: the model can only write text."),
                    "d": N_("Nothing is run again: one request is added after the clock."),
                },
            ),
            Text(
                N_("How should you choose max_turns for a task?"),
                (
                    N_("Keep the library's default."),
                    N_("As high as possible, so the model always finishes."),
                    N_("The longest honest run plus a margin, and price the worst case."),
                    N_("1, to keep it cheap."),
                ),
                "c",
                N_(
                    "The clock is for runs that went wrong: measure the honest runs, add a "
                    "margin, and know what a run that hits the clock costs."
                ),
                {
                    "a": N_("Defaults (10, 20, 25, 50, even 10,000) know nothing about your task."),
                    "b": N_(
                        "The worst case grows with the square of the budget, and a model that "
                        "never stops never finishes anyway."
                    ),
                    "d": N_("Then no task that needs a tool could ever finish."),
                },
            ),
            Text(
                N_("Which limit stops a model that answers slowly but stays within its turns?"),
                (N_("max_turns"), N_("stop_on"), N_("deadline_s"), N_("None: you must wait.")),
                "c",
                N_(
                    "deadline_s is a wall-clock limit on the whole run, checked before every "
                    "request and applied during it."
                ),
                {
                    "a": N_(
                        "max_turns counts requests, not seconds: a slow model can stay within "
                        "it for minutes."
                    ),
                    "b": N_("stop_on names a terminal tool: it has nothing to do with time."),
                    "d": N_("You can bound time: that is what deadline_s is for."),
                },
            ),
        ),
    },
    "1-2": {
        "predictions": (
            Text(
                N_(
                    "The searcher on level 1-2, offered only search_blocks. What will run.answer "
                    "be?"
                ),
                (
                    N_("A dict, such as {'block': 7}."),
                    N_("The text of its last reply."),
                    N_("The number 7."),
                    N_("Nothing: run.answer raises NoAnswer."),
                ),
                "b",
                N_("On the flag the answer is the text of the reply that asked for no tool."),
                {
                    "a": N_(
                        "A dict is what the warp pipe gives: a terminal tool's validated input. "
                        "Here there is no terminal tool."
                    ),
                    "c": N_(
                        "The block is in the text, but getting it out means parsing the "
                        "sentence (exercise 1-2.b)."
                    ),
                    "d": N_(
                        "NoAnswer is for the clock and the deadline; the flag carries an answer."
                    ),
                },
            ),
            Text(
                N_(
                    "The searcher on level 1-1 (no star) with a system prompt that lets it give "
                    "up. How does the run end?"
                ),
                (
                    N_("On the clock after 10 turns, as without the prompt."),
                    N_("On the flag on its first turn, without searching."),
                    N_("On the flag, after searching each area once."),
                    N_("Through the warp pipe."),
                ),
                "c",
                N_(
                    "Permission to give up is used when the searches come back empty: after one "
                    "search per area, the searcher says it couldn't find the star."
                ),
                {
                    "a": N_(
                        "The prompt changes what the model does once the areas are searched: "
                        "it may now stop and say so."
                    ),
                    "b": N_(
                        "Permission to give up is not a reason to skip the search: it comes "
                        "into play only when the searches come back empty."
                    ),
                    "d": N_("There is no star to mark, and no terminal tool is named."),
                },
            ),
            Text(
                N_("And the Loopboros, with the same permission?"),
                (
                    N_("It gives up, as the searcher did."),
                    N_("It gives up even sooner."),
                    N_("It still runs into the clock."),
                    N_("It raises an error."),
                ),
                "c",
                N_(
                    "Permission only helps a model that takes it: the Loopboros ignores it, so "
                    "max_turns stays the safety net."
                ),
                {
                    "a": N_("The Loopboros never admits defeat, whatever the prompt says."),
                    "b": N_("It never gives up at all: there is no sooner."),
                    "d": N_("Nothing fails: it just keeps searching, and the clock stops it."),
                },
            ),
        ),
        "quiz": (
            Text(
                N_("Who decides to stop on the flag?"),
                (N_("Your code."), N_("The model."), N_("The turn budget."), N_("The server.")),
                "b",
                N_("The flag is the model's decision: it replied without asking for a tool."),
                {
                    "a": N_("Your code decides on the warp pipe (stop_on), not on the flag."),
                    "c": N_("The budget decides on the clock."),
                    "d": N_(
                        "The server only carries the reply; the model chose to ask for no tool."
                    ),
                },
            ),
            Text(
                N_(
                    "On a level with nothing to find, what does a prompt that allows giving up "
                    "change?"
                ),
                (
                    N_("Nothing."),
                    N_(
                        "The model may end on the flag, saying it found nothing, instead of running "
                        "to the clock."
                    ),
                    N_("Every run gets shorter, star or no star."),
                    N_("It switches max_turns off."),
                ),
                "b",
                N_(
                    "With permission a model can take the normal exit with a failure report: "
                    "fewer turns, and an answer you can act on."
                ),
                {
                    "a": N_(
                        "Compare the two runs on level 1-1: with permission the searcher "
                        "stops early."
                    ),
                    "c": N_(
                        "Where there is a star, the searcher finds it before it runs out of "
                        "places: the permission is never used."
                    ),
                    "d": N_(
                        "max_turns stays on; the permission only gives the model another way out."
                    ),
                },
            ),
            Text(
                N_("Why keep max_turns when the prompt lets the model give up?"),
                (
                    N_("You do not need to."),
                    N_("Prompts cost tokens."),
                    N_("A model may ignore the permission, as the Loopboros does."),
                    N_("It makes the run faster."),
                ),
                "c",
                N_("A prompt asks; only the clock guarantees that the loop ends."),
                {
                    "a": N_("Run the Loopboros with the permission: only the clock stops it."),
                    "b": N_(
                        "The permission costs a few tokens per turn, but that is not why the "
                        "clock stays."
                    ),
                    "d": N_("max_turns does not make a run faster; it bounds the worst case."),
                },
            ),
            Text(
                N_(
                    "Your code needs the block number from an answer on the flag. What is the risk?"
                ),
                (
                    N_("None: the answer is always the same sentence."),
                    N_("Parsing the text breaks when the model words it differently."),
                    N_("The flag has no text."),
                    N_("run.answer raises NoAnswer."),
                ),
                "b",
                N_(
                    "Text is for people; a program that needs data should ask for data: the "
                    "warp pipe of level 1-3."
                ),
                {
                    "a": N_("Another model, or the same one tomorrow, words it differently."),
                    "c": N_(
                        "The flag's answer is text: the problem is getting a number out of it."
                    ),
                    "d": N_("The flag has an answer; the trouble is its form."),
                },
            ),
            Text(
                N_("The searcher answers level 1-2 on the flag in 3 turns. With max_turns=2?"),
                (
                    N_("It still answers, in 2 turns."),
                    N_("The clock stops it: no answer, although it found the star on turn 2."),
                    N_("It raises an error."),
                    N_("It answers on turn 1."),
                ),
                "b",
                N_(
                    "Finding the star is not reporting it: the report needs a turn of its own, "
                    "and the clock rings first."
                ),
                {
                    "a": N_(
                        "Saying where the star is takes a third request; with two, there is "
                        "none left."
                    ),
                    "c": N_("Nothing fails: the clock is an exit, with no answer."),
                    "d": N_("It cannot know the star's place before it searches."),
                },
            ),
        ),
    },
    "1-3": {
        "predictions": (
            Text(
                N_("Both tools offered, but no stop_on. What happens after mark_star runs?"),
                (
                    N_("The run stops at once."),
                    N_("One more turn: the model says it is done, and the run ends on the flag."),
                    N_("mark_star is called again, until the clock."),
                    N_("An error: mark_star must be in stop_on."),
                ),
                "b",
                N_(
                    "Nothing told the loop that mark_star was the end, so it sends the result back "
                    'and asks again: the model spends a turn saying "Done".'
                ),
                {
                    "a": N_(
                        "Only a tool named in stop_on ends the loop; any other tool's result "
                        "goes back to the model."
                    ),
                    "c": N_(
                        "The model sees that the marker is placed; it has no reason to mark it "
                        "again."
                    ),
                    "d": N_(
                        "Any tool may be offered without being terminal: it simply does not end "
                        "the loop."
                    ),
                },
            ),
            Text(
                N_(
                    'The sloppy caller\'s first mark_star call has item="Star" and block="the '
                    '12th block", with stop_on=["mark_star"]. What does the loop do?'
                ),
                (
                    N_("It stops: the warp pipe opens with that input as the answer."),
                    N_("It raises a validation error, and the run is lost."),
                    N_("It sends the validation error back to the model, and goes on."),
                    N_("It stops on the clock."),
                ),
                "c",
                N_(
                    "A terminal tool stops the loop only when its input validates and it runs; "
                    "otherwise the error is the tool's result, and the model can fix its call."
                ),
                {
                    "a": N_(
                        'Stopping on an invalid call would hand you block="the 12th block" as '
                        "the answer: exactly what a schema is there to prevent."
                    ),
                    "b": N_(
                        "A tool's failure never escapes the loop: it becomes the tool's result, "
                        "for the model to read."
                    ),
                    "d": N_(
                        "The budget is far from spent: the model gets another turn to fix its call."
                    ),
                },
            ),
            Text(
                N_(
                    "How many turns does the warp pipe save over the flag, for the searcher on "
                    "level 1-3?"
                ),
                (NC_("no turns", "None."), N_("One."), N_("Two."), N_("About half of them.")),
                "a",
                N_(
                    "The model needs one last reply either way: a sentence or a tool call. The "
                    "pipe buys an answer as data, not a shorter run."
                ),
                {
                    "b": N_(
                        "One turn is what stop_on saves over mark_star without stop_on; the "
                        "flag needs no extra turn."
                    ),
                    "c": N_(
                        "The searches are the same in both runs, and both end on the reply "
                        "after the last search."
                    ),
                    "d": N_("Both runs search the same areas, one per turn."),
                },
            ),
        ),
        "quiz": (
            Text(
                N_("When does a terminal tool stop the loop?"),
                (
                    N_("As soon as the model calls it."),
                    N_("When its input validated and its body ran without an error."),
                    N_("After its output was sent back to the model."),
                    N_("At max_turns."),
                ),
                "b",
                N_("Validated and ran: then its input is an answer you can trust the shape of."),
                {
                    "a": N_(
                        "A call with invalid input must not end the run: it goes back as an "
                        "error, and the model tries again."
                    ),
                    "c": N_(
                        "Sending the output back is what a non-terminal tool does; the pipe "
                        "stops instead."
                    ),
                    "d": N_("That is the clock, a different exit."),
                },
            ),
            Text(
                N_("What is run.answer on the warp pipe?"),
                (
                    N_("The tool's output string."),
                    N_("The text of the last reply."),
                    NC_("Python's None", "None."),
                    N_("The tool's validated input."),
                ),
                "d",
                N_(
                    "The answer is the data the model sent, checked against the tool's schema: "
                    "{'item': 'star', 'block': 12}."
                ),
                {
                    "a": N_(
                        'The output ("Marked block 12 ...") is for the model; the answer is '
                        "the input."
                    ),
                    "b": N_("That is the flag's answer."),
                    "c": N_("The pipe always carries an answer."),
                },
            ),
            Text(
                N_("Without stop_on, a model that calls mark_star costs you..."),
                (
                    N_("Nothing more."),
                    N_("One more turn, the dearest of the run, to say it is done."),
                    N_("An error."),
                    N_("The clock."),
                ),
                "b",
                N_(
                    "The extra turn re-sends the whole history, so it is the most expensive turn "
                    "of all."
                ),
                {
                    "a": N_("Count the turns: the run without stop_on is one turn longer."),
                    "c": N_("Nothing fails; the run just goes on for a turn."),
                    "d": N_("The model ends it on the flag, well before the clock."),
                },
            ),
            Text(
                N_("What does checking the answer against a schema guarantee?"),
                (
                    N_("That the answer is true."),
                    N_(
                        'Its shape: item is "star" and block a positive whole number, not that '
                        "the star is there."
                    ),
                    N_("Nothing at all."),
                    N_("That the model searched every area."),
                ),
                "b",
                N_(
                    "A schema checks the shape of an answer, not its truth: a guessed block "
                    "validates too."
                ),
                {
                    "a": N_(
                        "A model can guess a block that validates and is wrong; the map can "
                        "tell, the schema cannot."
                    ),
                    "c": N_("It guarantees that your code can use the answer without parsing."),
                    "d": N_("The schema sees only mark_star's input, not the searches."),
                },
            ),
            Text(
                N_("Which of these is a terminal tool in another library?"),
                (
                    N_("LangGraph's recursion_limit."),
                    N_("Pydantic AI's request_limit."),
                    N_("The OpenAI Agents SDK's StopAtTools (tool_use_behavior)."),
                    N_("smolagents' max_steps."),
                ),
                "c",
                N_(
                    "StopAtTools names tools that end the run; Pydantic AI's output tools and "
                    "smolagents' final_answer play the same part."
                ),
                {
                    "a": N_("recursion_limit is LangGraph's clock."),
                    "b": N_("request_limit is Pydantic AI's clock."),
                    "d": N_("max_steps is smolagents' clock; its terminal tool is final_answer."),
                },
            ),
        ),
    },
    "1-4": {
        "predictions": (
            Text(
                N_(
                    'The plain loop, the sloppy caller on level 1-3 with stop_on=("mark_star",). '
                    "Its first mark_star call fails validation. What happens?"
                ),
                (
                    N_("The loop stops, with the bad input as the answer."),
                    N_("The loop raises, and the run is lost."),
                    N_("The error goes back to the model, and the loop goes on."),
                    N_("The loop ends on the clock."),
                ),
                "b",
                N_(
                    "The plain loop has no error-back path: tool.validate raises, nothing catches "
                    "it, and the whole run is gone with it."
                ),
                {
                    "a": N_(
                        "The plain loop validates before it runs the tool, and the validation "
                        "raises before the pipe is reached."
                    ),
                    "c": N_(
                        "That is what it should do, and what you will make it do in exercise "
                        "1-4.a: today nothing catches the error."
                    ),
                    "d": N_("The run never gets that far: the exception ends it on turn 5."),
                },
            ),
            Text(
                N_(
                    'The "last message" loop, the Loopboros on level 1-1 with max_turns=5. What '
                    "does it return?"
                ),
                (
                    NC_("Python's None", "None."),
                    N_("A summary of what it searched."),
                    N_("An exception."),
                    N_("The model's last message: a search_blocks call."),
                ),
                "d",
                N_(
                    "It returns the last message whichever way the run ended; on the clock that "
                    "is a request for another search."
                ),
                {
                    "a": N_("It never returns None: the last message is always there."),
                    "b": N_(
                        "Nobody asked the model for a summary; that would be the wrap-up turn."
                    ),
                    "c": N_("It never raises on the clock: that is its flaw."),
                },
            ),
            Text(
                N_("And the reason its session_end event gives for that run?"),
                (N_('"max_turns"'), N_('"completed"'), N_('"error"'), N_("It emits none.")),
                "b",
                N_(
                    'Whenever the loop returns, the event says "completed": the clock reads '
                    "like a success."
                ),
                {
                    "a": N_(
                        "That is what it should say, and what run_agent's SessionEnd says: the "
                        "same reason as run.stop."
                    ),
                    "c": N_("Nothing raised: as far as that loop knows, the run went fine."),
                    "d": N_(
                        "It emits one for every run, which is the problem: always the same one."
                    ),
                },
            ),
            Text(
                N_(
                    "The castle's explorer starts the searcher at max_turns=10, with "
                    'stop_on=["mark_star"]. How does it end?'
                ),
                (
                    N_("Through the warp pipe."),
                    N_("On the flag."),
                    N_("On the clock."),
                    N_("On the deadline."),
                ),
                "c",
                N_(
                    "Sixteen rooms take sixteen searches: the default budget of 10 runs out long "
                    "before the throne room."
                ),
                {
                    "a": N_("It would, with enough turns: count the rooms first."),
                    "b": N_(
                        "The searcher reports the star only after finding it, and it has not "
                        "found it after 10 searches."
                    ),
                    "d": N_("There is no deadline here, and the mock answers in milliseconds."),
                },
            ),
        ),
        "quiz": (
            Text(
                N_("In your loop, where does a tool's exception go?"),
                (
                    N_("Up to the caller: the run fails."),
                    N_("Back to the model, as the tool's result."),
                    N_("Nowhere: it is ignored."),
                    N_("Into a log, and the call is retried."),
                ),
                "b",
                N_(
                    "The model can only fix what it is told: the error, as text, is the call's "
                    "result, and the loop goes on."
                ),
                {
                    "a": N_("One bad tool call would lose the whole run, and every turn paid for."),
                    "c": N_(
                        "Every tool call needs a result message; an ignored error leaves the "
                        "model guessing, and a real endpoint refuses the next request."
                    ),
                    "d": N_(
                        "Retrying blindly repeats the same mistake; the model decides what to "
                        "do once it reads the error."
                    ),
                },
            ),
            Text(
                N_("When may your loop stop on a stop_on tool?"),
                (
                    N_("As soon as the model calls it."),
                    N_("After the model confirms it is done."),
                    N_("Never: only the flag and the clock end a loop."),
                    N_("After its input validated and it ran without an error."),
                ),
                "d",
                N_("Validated and ran: only then is its input an answer."),
                {
                    "a": N_(
                        "The sloppy caller's first call would be your answer: block=\"the 12th "
                        'block".'
                    ),
                    "b": N_('Waiting for a confirmation is the extra "Done" turn the pipe saves.'),
                    "c": N_("The warp pipe is the third exit, the one your code decides."),
                },
            ),
            Text(
                N_(
                    'A loop returns the last message and reports "completed" for every run. '
                    "Which runs does it report as a success?"
                ),
                (
                    N_("Only the flag."),
                    N_("Every run, the clock included."),
                    NC_("no runs", "None."),
                    N_("Only the warp pipe."),
                ),
                "b",
                N_(
                    "One return shape and one reason for every exit: the caller cannot tell a "
                    "failure from an answer."
                ),
                {
                    "a": N_('It says "completed" for the clock too.'),
                    "c": N_("It reports every run the same way: completed."),
                    "d": N_(
                        "The pipe's last message is a tool call, like the clock's: they look alike."
                    ),
                },
            ),
            Text(
                N_(
                    "The sloppy caller with stop_on mark_star, stopped by the clock at turn 5, "
                    "right after its rejected call. What does the last-message recipe say?"
                ),
                (
                    N_("The clock."),
                    N_("The warp pipe, with the rejected input as the answer."),
                    N_("The flag."),
                    N_("It cannot tell."),
                ),
                "b",
                N_(
                    "The last message is a mark_star call, so the recipe calls it the pipe, and "
                    "hands you the input that failed validation as the answer."
                ),
                {
                    "a": N_(
                        "The recipe cannot see that the call was rejected: the rejection is in "
                        "the tool message after it."
                    ),
                    "c": N_(
                        "The last message has a tool call, so it is not the flag to the recipe."
                    ),
                    "d": N_("It always answers, and here it answers wrongly."),
                },
            ),
            Text(
                N_("What does run_agent add to your plain loop?"),
                (
                    N_("Nothing: it is the same loop."),
                    N_("A different algorithm."),
                    N_(
                        "The deadline, per-turn usage, the whole transcript and typed errors, "
                        "around the same exits."
                    ),
                    N_("A second model that checks the first."),
                ),
                "c",
                N_(
                    "Line by line it is your loop; the edges (time, usage, cut-off replies, "
                    "endpoint failures) live in small helpers beside it."
                ),
                {
                    "a": N_(
                        "It keeps more: a deadline, usage, retries, the transcript, one end event."
                    ),
                    "b": N_("Map it line by line: ask, check the exits, run the calls, repeat."),
                    "d": N_("One model, the same exits."),
                },
            ),
        ),
    },
}
"""Per notebook: its predictions (before key runs) and its five end-of-level questions."""
