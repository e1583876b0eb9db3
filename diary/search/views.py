from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.http import require_GET

from diary.search.forms import SearchForm
from diary.search.presenters import snippet
from diary.search.selectors import posts_matching

RESULTS_PER_PAGE = 20


@login_required
@require_GET
def search(request):
    """Posts of every session the user may read (or of one of them) matching the query."""
    if "q" in request.GET:
        form = SearchForm(request.GET, user=request.user)
    else:
        form = SearchForm(initial={"session": request.GET.get("session")}, user=request.user)
    page, page_query = None, ""
    if form.is_bound and form.is_valid():
        query = form.cleaned_data["q"]
        posts = posts_matching(request.user, query, session=form.cleaned_data["session"])
        page = Paginator(posts, RESULTS_PER_PAGE).get_page(request.GET.get("page"))
        for post in page:
            post.snippet = snippet(post, query)
        page_query = urlencode({"q": query, "session": request.GET.get("session", "")})
    context = {"form": form, "page": page, "page_query": page_query}
    return render(request, "diary/search.html", context)
