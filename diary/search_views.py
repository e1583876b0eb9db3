from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.http import require_GET

from diary.search import posts_matching, snippet
from diary.search_forms import SearchForm

RESULTS_PER_PAGE = 20


@login_required
@require_GET
def search(request):
    """Posts of every session the user may read that match the query."""
    form = SearchForm(request.GET) if "q" in request.GET else SearchForm()
    page = None
    if form.is_bound and form.is_valid():
        query = form.cleaned_data["q"]
        posts = posts_matching(request.user, query)
        page = Paginator(posts, RESULTS_PER_PAGE).get_page(request.GET.get("page"))
        for post in page:
            post.snippet = snippet(post.narration, query)
    return render(request, "diary/search.html", {"form": form, "page": page})
