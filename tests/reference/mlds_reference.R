# Reference fits for humanlike's MLDS tests, computed with base R only (stats::glm, stats::optim).
#
# It reproduces what the R package MLDS (Knoblauch & Maloney) does, without the package (CRAN is not
# reachable here): SwapOrder for quadruples stored with S1 > S4, the triad flip of mlds.mlbs.df, the design
# of make.ix.mat (+1 -1 -1 +1, triads +1 -2 +1, column of level 1 dropped), glm(resp ~ . - 1,
# binomial(link), control = glm.control(epsilon = 1e-14, maxit = 50000)), method "optim" with psi
# interior = plogis(x), sigma = exp(x) and BFGS, the formula method for a power scale, Get6pts/lik6pt and
# the observed number of runs of binom.diagnostics.
# Six-point conditions pair the k-th repetitions of repeated quadruples (Get6pts with nrep), issue 22.
#
# Usage: Rscript tests/reference/mlds_reference.R /work/shared/data/mlds > tests/reference/mlds_r_reference.json

args <- commandArgs(trailingOnly = TRUE)
dir <- if (length(args)) args[1] else "../shared/data/mlds"

read_set <- function(name) {
  d <- read.csv(file.path(dir, paste0(name, ".csv")))
  if ("Response" %in% names(d)) d <- data.frame(resp = d$Response, S1 = d$i1, S2 = d$i2, S3 = d$i3)
  d
}
swap_order <- function(d) {                   # MLDS::SwapOrder (quads) / mlds.mlbs.df flip (triads)
  if ("S4" %in% names(d)) {
    inv <- d$S1 > d$S4
    d$resp[inv] <- 1 - d$resp[inv]
    d[inv, c("S1", "S2", "S3", "S4")] <- d[inv, c("S3", "S4", "S1", "S2")]
  } else {
    inv <- d$S1 > d$S3
    d$resp[inv] <- 1 - d$resp[inv]
    d[inv, c("S1", "S2", "S3")] <- d[inv, c("S3", "S2", "S1")]
  }
  d
}
levels_of <- function(d) as.matrix(d[, intersect(c("S1", "S2", "S3", "S4"), names(d))])
weights_of <- function(d) if ("S4" %in% names(d)) c(1, -1, -1, 1) else c(1, -2, 1)
design_df <- function(d, p) {                 # MLDS::make.ix.mat, also for triads
  s <- levels_of(d)
  w <- weights_of(d)
  x <- matrix(0, nrow(d), p)
  for (j in seq_len(ncol(s))) x[cbind(seq_len(nrow(d)), s[, j])] <- x[cbind(seq_len(nrow(d)), s[, j])] + w[j]
  out <- data.frame(resp = d$resp, stim = x)
  out[, -2]
}
ctl <- glm.control(epsilon = 1e-14, maxit = 50000)

fit_glm <- function(d, link) {
  p <- max(levels_of(d))
  dd <- design_df(d, p)
  m <- glm(resp ~ . - 1, family = binomial(link = link), data = dd, control = ctl)
  coefs <- coef(m)
  se <- summary(m)$coefficients[, 2]
  list(method = "glm", link = link, n_trials = nrow(d), pscale = c(0, unname(coefs)),
       standard_scale = c(0, unname(coefs)) / coefs[length(coefs)], sigma = 1 / unname(coefs[length(coefs)]),
       standard_errors = c(0, unname(se)), loglik = as.numeric(logLik(m)), aic = AIC(m),
       deviance = deviance(m), null_deviance = m$null.deviance,
       daf = (m$null.deviance - deviance(m)) / m$null.deviance,
       misclassified = 1 - sum((predict(m) > 0) == d$resp) / nrow(d),
       iterations = m$iter, converged = m$converged, model = m)
}

fit_optim <- function(d, link) {            # MLDS method = "optim" (diff.err / diff.sc), quads and triads
  p <- max(levels_of(d))
  s <- levels_of(d)
  w <- weights_of(d)
  fam <- binomial(link = link)
  nll <- function(x) {
    n <- c(0, plogis(x[seq_len(p - 2)]), 1)
    sig <- exp(x[p - 1])
    del <- matrix(n[s], ncol = ncol(s)) %*% w
    pr <- fam$linkinv(del / sig)
    pr[pr < .Machine$double.eps] <- .Machine$double.eps
    pr[pr > 1 - .Machine$double.eps] <- 1 - .Machine$double.eps
    -sum(log(pr[d$resp == 1])) - sum(log(1 - pr[d$resp == 0]))
  }
  init <- c(seq(0, 1, length.out = p), 0.2)  # the MLDS vignette's opt.init
  x0 <- c(qlogis(init[2:(p - 1)]), log(init[length(init)]))
  r <- optim(x0, nll, method = "BFGS", hessian = TRUE, control = list(maxit = 50000, abstol = 1e-14))
  psi <- c(0, plogis(r$par[seq_len(p - 2)]), 1)
  list(method = "optim", link = link, n_trials = nrow(d), standard_scale = psi, sigma = exp(r$par[p - 1]),
       loglik = -r$value, convergence = r$convergence)
}

fit_power <- function(d, link, stim) {      # MLDS formula method: ~ ((sx - sx1) / (sxp - sx1))^p[1]
  s <- levels_of(d)
  w <- weights_of(d)
  u <- (stim - stim[1]) / (stim[length(stim)] - stim[1])
  fam <- binomial(link = link)
  nll <- function(par) {
    del <- matrix((u^par[1])[s], ncol = ncol(s)) %*% w
    pr <- fam$linkinv(del / par[2])
    pr[pr < .Machine$double.eps] <- .Machine$double.eps
    pr[pr > 1 - .Machine$double.eps] <- 1 - .Machine$double.eps
    -sum(log(pr[d$resp == 1])) - sum(log(1 - pr[d$resp == 0]))
  }
  r <- optim(c(2, 0.2), nll, method = "BFGS", hessian = TRUE, control = list(maxit = 50000, reltol = 1e-14))
  list(method = "power", link = link, n_trials = nrow(d), exponent = r$par[1], sigma = r$par[2],
       standard_scale = u^r$par[1], loglik = -r$value, convergence = r$convergence)
}

six_point <- function(d, fit) {              # MLDS::Get6pts(fit, nrep) + lik6pt on the glm fit
  # Every six-point condition (a, b; a', b'), (b, c; b', c'), (a, c; a', c') with a < a'; where the
  # quadruples repeat (pooled sessions, two runs), the k-th occurrences of the three (in row order) form
  # the condition's k-th repetition, as Get6pts pairs the repetitions given by nrep.
  n <- length(fit$pscale)
  fs <- t(combn(seq(n), 3)); ss <- t(combn(seq(2, n), 3))
  ii <- expand.grid(seq(nrow(fs)), seq(nrow(ss)))
  fl <- cbind(fs[ii$Var1, ], ss[ii$Var2, ])
  fl <- fl[fl[, 1] < fl[, 4], ]
  key <- function(m) apply(m, 1, paste, collapse = ",")
  rows_of <- split(seq_len(nrow(d)), key(as.matrix(d[, c("S1", "S2", "S3", "S4")])))
  occurrences <- function(cols) unname(rows_of[key(fl[, cols])])
  A <- occurrences(c(1, 2, 4, 5)); B <- occurrences(c(2, 3, 5, 6)); E <- occurrences(c(1, 3, 4, 6))
  reps <- pmin(lengths(A), lengths(B), lengths(E))
  first_k <- function(occ) unlist(mapply(function(r, k) r[seq_len(k)], occ, reps, SIMPLIFY = FALSE))
  rows <- c(first_k(A), first_k(B), first_k(E))
  pr <- fitted(fit$model)[rows]
  y <- d$resp[rows]
  list(n_six_point = sum(reps), lik6pt = sum(y * log(pr) + (1 - y) * log(1 - pr)))
}

observed_runs <- function(fit) {             # binom.diagnostics: ObsRuns (deterministic part)
  m <- fit$model
  rs <- residuals(m, type = "deviance")
  o <- sort(fitted(m), index.return = TRUE)$ix
  r <- rs[o] > 0
  n <- length(r)
  sum(r[1:(n - 1)] != r[2:n])
}

fmt <- function(x) {
  if (is.logical(x)) return(if (length(x) == 1) tolower(as.character(x)) else paste0("[", paste(tolower(x), collapse = ", "), "]"))
  if (is.character(x)) return(paste0("\"", x, "\""))
  v <- ifelse(is.finite(x), sprintf("%.17g", x), "null")
  if (length(x) == 1) v else paste0("[", paste(v, collapse = ", "), "]")
}
to_json <- function(case) {
  case$model <- NULL
  paste0("{", paste(sprintf("\"%s\": %s", names(case), vapply(case, fmt, "")), collapse = ", "), "}")
}

stim11 <- c(seq(0, 0.9, 0.1), 0.98)
cases <- list()
add <- function(name, files, res, extra = list()) {
  res$files <- paste(files, collapse = "+")
  for (k in names(extra)) res[[k]] <- extra[[k]]
  cases[[name]] <<- res
}
autumn <- swap_order(read_set("AutumnLab"))
kk <- lapply(c("kk1", "kk2", "kk3"), function(f) swap_order(read_set(f)))
kkall <- do.call(rbind, kk)
kktriad <- swap_order(read_set("kktriad"))
tri11 <- swap_order(read_set("triads_11levels"))
transp <- read.csv(file.path(dir, "Transparency.csv"))

for (link in c("probit", "logit", "cauchit")) {
  f <- fit_glm(autumn, link)
  add(paste0("AutumnLab/glm/", link), "AutumnLab", f,
      if (link == "probit") c(six_point(autumn, f), list(observed_runs = observed_runs(f))) else list())
  f <- fit_glm(kkall, link)
  add(paste0("kk123/glm/", link), c("kk1", "kk2", "kk3"), f,
      if (link == "probit") c(six_point(kkall, f), list(observed_runs = observed_runs(f))) else list())
}
for (i in 1:3) add(sprintf("kk%d/glm/probit", i), sprintf("kk%d", i), fit_glm(kk[[i]], "probit"))
add("kktriad/glm/probit", "kktriad", fit_glm(kktriad, "probit"))
add("kktriad/glm/logit", "kktriad", fit_glm(kktriad, "logit"))
add("triads_11levels/glm/probit", "triads_11levels", fit_glm(tri11, "probit"))
for (o in sort(unique(transp$Obs))) {
  d <- transp[transp$Obs == o, c("resp", "S1", "S2", "S3", "S4")]
  d$resp <- as.integer(d$resp)
  f <- fit_glm(swap_order(d), "probit")
  add(sprintf("Transparency-%s/glm/probit", o), "Transparency", f, c(list(observer = o), six_point(swap_order(d), f)))
}
add("AutumnLab/optim/probit", "AutumnLab", fit_optim(autumn, "probit"))
add("kk123/optim/probit", c("kk1", "kk2", "kk3"), fit_optim(kkall, "probit"))
add("kktriad/optim/probit", "kktriad", fit_optim(kktriad, "probit"))
add("kk123/power/probit", c("kk1", "kk2", "kk3"), fit_power(kkall, "probit", stim11))

cat("{\n", paste(sprintf("  \"%s\": %s", names(cases), vapply(cases, to_json, "")), collapse = ",\n"),
    "\n}\n", sep = "")
