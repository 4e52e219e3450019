/* lesson.h — a lab's README.md as a styled document for the tutor: the
 * subset of Markdown the lessons use (ATX headings, paragraphs, emphasis,
 * inline code, links, bullet and numbered lists, block quotes, fenced code,
 * tables and rules), flowed to the width of the screen.  No curses here. */
#ifndef LESSON_H
#define LESSON_H

#include "view/doc.h"

/* Renders markdown into d (appending), paragraphs flowed to width columns.
 * Code blocks and tables keep their lines as written; the screen clips them.
 * Always succeeds; d->oom says whether memory ran out on the way. */
void lesson_render(struct doc *d, const char *markdown, int width);

/* Renders inline Markdown (emphasis, code, links) of one paragraph into p,
 * in `base` where no other style applies.  Used for hints and summaries too. */
void lesson_inline(struct doc_para *p, const char *text, size_t len, enum doc_style base);

#endif /* LESSON_H */
